/**
 * A test's compliance over time (testReport's trend): entities passing and failing per
 * day, an area each. The same numbers are in a table beside the chart, visible or,
 * on the dashboard's small charts, for screen readers only.
 */
import { Area, AreaChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';

export interface TrendPoint {
  readonly day: string;
  readonly passing: number;
  readonly failing: number;
  readonly notApplicable: number;
}

const PASS = '#1d6b2f';
const FAIL = '#a4161a';

export function ComplianceChart({ title, trend, size = 'large' }: { title: string; trend: readonly TrendPoint[]; size?: 'small' | 'large' }) {
  const id = `trend-${title.replace(/\W+/g, '-')}`;
  const small = size === 'small';
  return (
    <figure className={`chart trend ${small ? 'trend-small' : ''}`} aria-labelledby={`${id}-caption`}>
      <figcaption id={`${id}-caption`} className={small ? 'visually-hidden' : undefined}>
        Entities passing and failing {title}, per day
      </figcaption>
      <div className="chart-canvas" aria-hidden="true" data-points={trend.length}>
        <ResponsiveContainer width="100%" height={small ? 120 : 260}>
          <AreaChart data={[...trend]} margin={{ top: 8, right: 16, bottom: 8, left: 0 }} accessibilityLayer={false}>
            <CartesianGrid strokeDasharray="3 3" vertical={false} />
            <XAxis dataKey="day" tick={{ fontSize: 11 }} hide={small} />
            <YAxis allowDecimals={false} width={small ? 36 : 56} tick={{ fontSize: 11 }} />
            <Tooltip />
            {!small && <Legend />}
            <Area type="monotone" dataKey="passing" name="Passing" stroke={PASS} fill={PASS} fillOpacity={0.35} isAnimationActive={false} dot={trend.length === 1} />
            <Area type="monotone" dataKey="failing" name="Failing" stroke={FAIL} fill={FAIL} fillOpacity={0.35} isAnimationActive={false} dot={trend.length === 1} />
          </AreaChart>
        </ResponsiveContainer>
      </div>
      <table className={small ? 'visually-hidden' : 'chart-data'}>
        <caption>Compliance of {title} per day (UTC)</caption>
        <thead>
          <tr>
            <th scope="col">Day</th>
            <th scope="col">Passing</th>
            <th scope="col">Failing</th>
            <th scope="col">Not applicable</th>
          </tr>
        </thead>
        <tbody>
          {trend.map((p) => (
            <tr key={p.day}>
              <th scope="row">{p.day}</th>
              <td>{p.passing}</td>
              <td>{p.failing}</td>
              <td>{p.notApplicable}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}
