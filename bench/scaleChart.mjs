// The chart of the scale benchmark (docs/benchmarks-scale.svg): how search p50, the bulk
// load's rate and memory grow with the number of datasets. Three panels over the same
// logarithmic axis of sizes; plain SVG, no dependency, so the bench can write it.
const W = 300;
// The legend sits under the plot, up to six rows.
const H = 300;
const M = { left: 56, right: 12, top: 30, bottom: 120 };
const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b'];

const esc = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;');
const short = (n) => (n >= 1e6 ? `${n / 1e6}M` : n >= 1e3 ? `${n / 1e3}k` : String(n));

/** A "nice" upper bound for an axis: 1, 2 or 5 times a power of ten. */
function niceMax(v) {
  if (!(v > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  return [1, 2, 5, 10].map((k) => k * p).find((x) => x >= v);
}

/** One panel: series of [size, value] points, solid or dashed, with a legend. */
function panel(x0, title, unit, sizes, series) {
  const values = series.flatMap((s) => s.points.map((p) => p[1])).filter(Number.isFinite);
  const yMax = niceMax(Math.max(...values, 0) * 1.05);
  const [lo, hi] = [Math.log10(Math.min(...sizes)), Math.log10(Math.max(...sizes))];
  const pw = W - M.left - M.right;
  const ph = H - M.top - M.bottom;
  const px = (n) => x0 + M.left + (hi === lo ? pw / 2 : ((Math.log10(n) - lo) / (hi - lo)) * pw);
  const py = (v) => M.top + ph - (v / yMax) * ph;
  const out = [`<text x="${x0 + W / 2}" y="16" text-anchor="middle" font-weight="bold">${esc(title)}</text>`];
  for (let k = 0; k <= 4; k++) {
    const v = (yMax * k) / 4;
    out.push(`<line x1="${x0 + M.left}" x2="${x0 + W - M.right}" y1="${py(v)}" y2="${py(v)}" stroke="#ddd"/>`);
    out.push(`<text x="${x0 + M.left - 4}" y="${py(v) + 4}" text-anchor="end">${round3(v)}</text>`);
  }
  out.push(`<text x="${x0 + 12}" y="${M.top + ph / 2}" text-anchor="middle" transform="rotate(-90 ${x0 + 12} ${M.top + ph / 2})">${esc(unit)}</text>`);
  for (const n of sizes) out.push(`<text x="${px(n)}" y="${M.top + ph + 16}" text-anchor="middle">${short(n)}</text>`);
  out.push(`<text x="${x0 + M.left + pw / 2}" y="${M.top + ph + 30}" text-anchor="middle">datasets</text>`);
  series.forEach((s, i) => {
    const color = s.color ?? COLORS[i % COLORS.length];
    const pts = s.points.filter((p) => Number.isFinite(p[1]));
    out.push(`<polyline fill="none" stroke="${color}" stroke-width="2"${s.dashed ? ' stroke-dasharray="5 3"' : ''} points="${pts.map((p) => `${px(p[0]).toFixed(1)},${py(p[1]).toFixed(1)}`).join(' ')}"/>`);
    for (const p of pts) out.push(`<circle cx="${px(p[0]).toFixed(1)}" cy="${py(p[1]).toFixed(1)}" r="3" fill="${color}"/>`);
  });
  series.forEach((s, i) => {
    const color = s.color ?? COLORS[i % COLORS.length];
    const ly = M.top + ph + 46 + i * 13;
    out.push(`<line x1="${x0 + M.left + 6}" x2="${x0 + M.left + 22}" y1="${ly}" y2="${ly}" stroke="${color}" stroke-width="2"${s.dashed ? ' stroke-dasharray="5 3"' : ''}/>`);
    out.push(`<text x="${x0 + M.left + 26}" y="${ly + 4}">${esc(s.name)}</text>`);
  });
  return out.join('\n');
}

function round3(v) {
  return Number(v.toPrecision(3)).toLocaleString('en-US');
}

/** The SVG for the per-size results of scale.mjs. */
export function scaleChart(results) {
  const sizes = results.map((r) => r.size);
  const rowOf = (r, prefix) => r.search.rows.find((q) => q.label.startsWith(prefix));
  const searchSeries = [
    ['scroll', 'GraphQL `scroll'],
    ['aggregate', 'GraphQL `aggregate'],
    ['REST search', 'REST v3'],
  ].flatMap(([name, prefix], i) => [
    { name: `${name}`, color: COLORS[i], points: results.map((r) => [r.size, rowOf(r, prefix)?.service.p50]) },
    { name: `${name}, raw`, color: COLORS[i], dashed: true, points: results.map((r) => [r.size, rowOf(r, prefix)?.raw.p50]) },
  ]);
  const pss = (m, name) => (name ? m.get(name)?.pss : [...m.values()].reduce((a, x) => a + x.pss, 0));
  const memorySeries = [
    { name: 'whole tree (PSS)', points: results.map((r) => [r.size, pss(r.memoryIdle)]) },
    { name: 'node (PSS)', points: results.map((r) => [r.size, pss(r.memoryIdle, 'node (server)')]) },
    { name: 'Meilisearch (PSS)', points: results.map((r) => [r.size, pss(r.memoryIdle, 'meilisearch')]) },
    { name: 'index on disk', dashed: true, points: results.map((r) => [r.size, r.disk.meili / 2 ** 20]) },
  ];
  const body = [
    panel(0, 'Search p50', 'ms', sizes, searchSeries),
    panel(W, 'Bulk load until searchable', 'datasets/s', sizes, [{ name: 'rate of each step', points: results.map((r) => [r.size, r.bulk.perSecond]) }]),
    panel(2 * W, 'Memory, 30 s after the load', 'MB', sizes, memorySeries),
  ];
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${3 * W}" height="${H}" viewBox="0 0 ${3 * W} ${H}" font-family="sans-serif" font-size="10">
<rect width="100%" height="100%" fill="white"/>
${body.join('\n')}
</svg>
`;
}
