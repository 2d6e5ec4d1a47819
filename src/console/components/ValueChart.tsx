/**
 * The distribution of a property's values (from aggregateAcrossEntities): one bar per
 * allowed value or text, a histogram for numbers and dates. The same numbers are in a
 * table beside the chart for people who do not see it.
 */
import { counted } from '../lib/properties';
import { Link } from '../lib/router';
import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';

export interface Bucket {
  readonly label: string;
  readonly count: number;
  readonly description?: string | null;
  /** Where the entities counted are listed (a search), when a search can select them. */
  readonly href?: string;
}

export interface FacetCount {
  readonly value: string;
  readonly count: number;
}

const MAX_BINS = 10;
const DAY = 86_400_000;

/** Equal-width bins over numeric values; `format` labels a bin's bounds. */
export function histogram(counts: readonly FacetCount[], toNumber: (v: string) => number, format: (n: number) => string, integral = false): Bucket[] {
  const points = counts.map((c) => ({ x: toNumber(c.value), count: c.count })).filter((p) => Number.isFinite(p.x));
  if (points.length === 0) return [];
  const min = Math.min(...points.map((p) => p.x));
  const max = Math.max(...points.map((p) => p.x));
  if (min === max) return [{ label: format(min), count: points.reduce((n, p) => n + p.count, 0) }];
  const bins = Math.min(MAX_BINS, points.length);
  let width = (max - min) / bins;
  if (integral) width = Math.max(1, Math.ceil(width));
  const buckets = Array.from({ length: bins }, (_, i) => ({ from: min + i * width, to: i === bins - 1 ? max : min + (i + 1) * width, count: 0 }));
  for (const p of points) buckets[Math.min(bins - 1, Math.floor((p.x - min) / width))]!.count += p.count;
  // Each range includes its lower bound; the last one includes the maximum too.
  return buckets.filter((b) => b.from <= max).map((b) => ({ label: `${format(b.from)} – ${format(b.to)}`, count: b.count }));
}

export const dateHistogram = (counts: readonly FacetCount[]): Bucket[] =>
  histogram(counts, (v) => Math.floor(Date.parse(`${v}T00:00:00Z`) / DAY), (n) => new Date(Math.round(n) * DAY).toISOString().slice(0, 10), true);

export const numberHistogram = (counts: readonly FacetCount[]): Bucket[] =>
  histogram(counts, Number, (n) => String(Math.round(n * 1000) / 1000));

interface BarShapeProps {
  x?: number;
  y?: number;
  width?: number;
  height?: number;
  payload?: Bucket;
}

function BarShape({ x = 0, y = 0, width = 0, height = 0, payload }: BarShapeProps) {
  return <rect className="chart-bar" x={x} y={y} width={width} height={Math.max(0, height)} data-label={payload?.label} data-count={payload?.count} />;
}

export function ValueChart({ title, buckets, kind }: { title: string; buckets: readonly Bucket[]; kind: 'bars' | 'histogram' }) {
  const id = `chart-${title.replace(/\W+/g, '-')}`;
  if (buckets.length === 0) return <p>No entity holds a value yet.</p>;
  return (
    <figure className="chart" aria-labelledby={`${id}-caption`}>
      <figcaption id={`${id}-caption`}>
        {kind === 'bars' ? 'Entities per value' : 'Entities per range of values'} of {title}
      </figcaption>
      <div className="chart-canvas" aria-hidden="true">
        <ResponsiveContainer width="100%" height={260}>
          <BarChart data={[...buckets]} margin={{ top: 8, right: 16, bottom: 8, left: 0 }} accessibilityLayer={false}>
            <CartesianGrid strokeDasharray="3 3" vertical={false} />
            <XAxis dataKey="label" interval={0} tick={{ fontSize: 12 }} />
            <YAxis allowDecimals={false} />
            <Tooltip />
            <Bar dataKey="count" name="Entities" fill="#1f5fa8" shape={BarShape} isAnimationActive={false} />
          </BarChart>
        </ResponsiveContainer>
      </div>
      <table className="chart-data">
        <caption>Values of {title}</caption>
        <thead>
          <tr>
            <th scope="col">{kind === 'bars' ? 'Value' : 'Range'}</th>
            <th scope="col">Entities</th>
          </tr>
        </thead>
        <tbody>
          {buckets.map((b) => (
            <tr key={b.label}>
              <th scope="row">
                {b.label}
                {b.description && <span className="value-description"> — {b.description}</span>}
              </th>
              <td>{b.href && b.count > 0 ? <Link href={b.href} aria-label={`${counted(b.count, 'entity', 'entities')} with ${b.label}`}>{b.count}</Link> : b.count}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}
