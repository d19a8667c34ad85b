// The figures as rows — name, Shop median (min–max), LangGraph median (min–max) or "—",
// ratio, goal, ok/OVER — and the one table they print as. Goals are tracked, not enforced.
import { summary } from './stats.mjs';

const num = (v) => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2));
const cell = (s) => (s ? `${num(s.value)} (${num(s.min)}–${num(s.max)})` : '—');

function judged(row, met) {
  return { ...row, meets: row.goal ? met : null };
}

/**
 * Shop against LangGraph on the same shape of work (lower is better). The ratio is
 * LangGraph ÷ Shop; `lgTimes` asks LangGraph to take at least that many times Shop's.
 */
export function versus(figure, name, unit, shopSamples, lgSamples, { lgTimes = null, max = null } = {}) {
  const shop = summary(shopSamples);
  const langgraph = summary(lgSamples);
  const ratio = langgraph.value / shop.value;
  const row = { figure, name, unit, shop, langgraph, ratio, ratioOf: 'LangGraph ÷ Shop' };
  if (lgTimes)
    return judged({ ...row, goal: lgTimes === 2 ? 'Shop ≤ ½ LG' : `LG ≥ ${lgTimes}× Shop` }, ratio >= lgTimes);
  if (max !== null) return judged({ ...row, goal: `Shop ≤ ${max} ${unit}` }, shop.value <= max);
  return judged({ ...row, goal: null }, null);
}

/**
 * A Shop-only figure: the median of its samples, or their `p`-th percentile; `note` fills
 * the LangGraph column (e.g. why it was not run).
 */
export function shopOnly(figure, name, unit, samples, { max = null, note = null, p = 50 } = {}) {
  const shop = summary(samples, p);
  const row = {
    figure,
    name,
    unit,
    shop,
    langgraph: null,
    note,
    ratio: null,
    goal: max === null ? null : `≤ ${max} ${unit}`,
  };
  return judged(row, shop.value <= max);
}

/** Shop against a floor measured alongside (a bare process): the ratio is Shop ÷ floor. */
export function overFloor(figure, name, unit, samples, floorSamples, floorName, max) {
  const shop = summary(samples);
  const ratio = shop.value / summary(floorSamples).value;
  return judged(
    {
      figure,
      name,
      unit,
      shop,
      langgraph: null,
      ratio,
      ratioOf: `Shop ÷ ${floorName}`,
      goal: `≤ ${max}× ${floorName}`,
    },
    ratio <= max,
  );
}

/**
 * Shop against DBOS Transact on the same shape of work. Lower is better unless `higher` (a
 * rate): the ratio is then Shop ÷ DBOS, else DBOS ÷ Shop — above 1 means Shop did better.
 * `p` picks a percentile of both sides' samples instead of the median; `atLeast` is the goal
 * (that ratio at least this much); `note` stands in the DBOS column when it has no samples.
 */
export function versusDbos(
  figure,
  name,
  unit,
  shopSamples,
  dbosSamples,
  { higher = false, p = 50, atLeast = null, note = null } = {},
) {
  const shop = summary(shopSamples, p);
  const dbos = dbosSamples ? summary(dbosSamples, p) : null;
  const ratio = dbos ? (higher ? shop.value / dbos.value : dbos.value / shop.value) : null;
  const row = { figure, name, unit, shop, peer: dbos, note, ratio, ratioOf: higher ? 'Shop ÷ DBOS' : 'DBOS ÷ Shop' };
  if (atLeast === null || ratio === null) return judged({ ...row, goal: null }, null);
  return judged(
    { ...row, goal: higher ? `Shop ≥ ${atLeast}× DBOS` : atLeast === 1 ? 'Shop ≤ DBOS' : `DBOS ≥ ${atLeast}× Shop` },
    ratio >= atLeast,
  );
}

/** A DBOS-only figure (Shop's column says why there is none, or `shopNote`). */
export function dbosOnly(figure, name, unit, samples, { p = 50, shopNote = '—' } = {}) {
  return { figure, name, unit, shop: null, shopNote, peer: summary(samples, p), ratio: null, goal: null, meets: null };
}

function ratioCell(r) {
  if (r.ratio == null) return '';
  if (r.ratioOf.startsWith('LangGraph')) return `LG ${r.ratio.toFixed(2)}× Shop`;
  if (r.ratioOf === 'DBOS ÷ Shop') return `DBOS ${r.ratio.toFixed(2)}× Shop`;
  if (r.ratioOf === 'Shop ÷ DBOS') return `Shop ${r.ratio.toFixed(2)}× DBOS`;
  return `${r.ratio.toFixed(2)}× ${r.ratioOf.split(' ÷ ')[1]}`;
}

/** The printed table, one line per row, columns padded to fit; `peer` names the other column. */
export function formatTable(rows, title, peer = 'LangGraph') {
  const head = ['figure', 'Shop', peer, 'ratio', 'goal', ''];
  const body = rows.map((r) => [
    `${r.figure} ${r.name}, ${r.unit}`,
    r.shop ? cell(r.shop) : (r.shopNote ?? '—'),
    (r.peer ?? r.langgraph) ? cell(r.peer ?? r.langgraph) : (r.note ?? '—'),
    ratioCell(r),
    r.goal ?? '—',
    r.meets === null ? '' : r.meets ? 'ok' : 'OVER',
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cols) =>
    cols
      .map((c, i) => c.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  return [title, line(head), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n');
}
