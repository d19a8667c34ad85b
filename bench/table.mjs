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
  if (lgTimes) return judged({ ...row, goal: lgTimes === 2 ? 'Shop ≤ ½ LG' : `LG ≥ ${lgTimes}× Shop` }, ratio >= lgTimes);
  if (max !== null) return judged({ ...row, goal: `Shop ≤ ${max} ${unit}` }, shop.value <= max);
  return judged({ ...row, goal: null }, null);
}

/**
 * A Shop-only figure: the median of its samples, or their `p`-th percentile; `note` fills
 * the LangGraph column (e.g. why it was not run).
 */
export function shopOnly(figure, name, unit, samples, { max = null, note = null, p = 50 } = {}) {
  const shop = summary(samples, p);
  const row = { figure, name, unit, shop, langgraph: null, note, ratio: null, goal: max === null ? null : `≤ ${max} ${unit}` };
  return judged(row, shop.value <= max);
}

/** Shop against a floor measured alongside (a bare process): the ratio is Shop ÷ floor. */
export function overFloor(figure, name, unit, samples, floorSamples, floorName, max) {
  const shop = summary(samples);
  const ratio = shop.value / summary(floorSamples).value;
  return judged({ figure, name, unit, shop, langgraph: null, ratio, ratioOf: `Shop ÷ ${floorName}`, goal: `≤ ${max}× ${floorName}` }, ratio <= max);
}

function ratioCell(r) {
  if (r.ratio == null) return '';
  return r.ratioOf.startsWith('LangGraph') ? `LG ${r.ratio.toFixed(2)}× Shop` : `${r.ratio.toFixed(2)}× ${r.ratioOf.split(' ÷ ')[1]}`;
}

/** The printed table, one line per row, columns padded to fit. */
export function formatTable(rows, title) {
  const head = ['figure', 'Shop', 'LangGraph', 'ratio', 'goal', ''];
  const body = rows.map((r) => [
    `${r.figure} ${r.name}, ${r.unit}`, cell(r.shop), r.langgraph ? cell(r.langgraph) : (r.note ?? '—'),
    ratioCell(r), r.goal ?? '—', r.meets === null ? '' : r.meets ? 'ok' : 'OVER',
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cols) => cols.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd();
  return [title, line(head), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n');
}
