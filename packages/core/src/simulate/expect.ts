import { isDeepStrictEqual } from 'node:util';
import type { Fixture } from './fixture.js';
import type { Simulation } from './simulate.js';

/** What a simulation did against what the fixture expects: one readable line (or block) per difference. */
export function compareExpect(expected: Fixture['expect'], got: Simulation): string[] {
  const problems: string[] = [];
  const statuses: string[] = typeof expected.status === 'string' ? [expected.status] : expected.status;
  if (!statuses.includes(got.status)) {
    problems.push(
      `status: expected ${statuses.join(' or ')}, got ${got.status}${got.reason ? ` (${got.reason})` : ''}`,
    );
  }
  if (expected.reason !== undefined && expected.reason !== got.reason)
    problems.push(`reason: expected ${JSON.stringify(expected.reason)}, got ${JSON.stringify(got.reason)}`);
  if (expected.result !== undefined && !matchesPart(expected.result, got.result))
    problems.push(`result:\n${lineDiff(pretty(expected.result), pretty(got.result))}`);
  if (expected.calls !== undefined && !isDeepStrictEqual(expected.calls, got.calls)) {
    const at = expected.calls.findIndex((c, i) => c !== got.calls[i]);
    const i = at < 0 ? expected.calls.length : at;
    problems.push(
      `calls: differ at call ${i + 1}: expected ${expected.calls[i] ?? '(no more calls)'}, got ${got.calls[i] ?? '(no more calls)'}\n` +
        `  expected: ${expected.calls.join(', ')}\n  got:      ${got.calls.join(', ')}`,
    );
  }
  return problems;
}

/**
 * `expect.result` is a partial match: an object matches when every key it gives matches (the
 * result may hold more); an array matches element by element, of the same length; anything
 * else is equal. So `{ "shipped": true }` checks one field of a larger result.
 */
function matchesPart(expected: unknown, got: unknown): boolean {
  if (Array.isArray(expected))
    return Array.isArray(got) && got.length === expected.length && expected.every((e, i) => matchesPart(e, got[i]));
  if (expected !== null && typeof expected === 'object') {
    if (got === null || typeof got !== 'object' || Array.isArray(got)) return false;
    return Object.entries(expected).every(
      ([k, v]) => Object.hasOwn(got, k) && matchesPart(v, (got as Record<string, unknown>)[k]),
    );
  }
  return isDeepStrictEqual(expected, got);
}

const pretty = (v: unknown) => JSON.stringify(v ?? null, null, 2).split('\n');

/** A line diff (longest common subsequence): "- " expected, "+ " got, "  " both. */
function lineDiff(a: string[], b: string[]): string {
  const lcs: number[][] = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--)
      lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      out.push(`    ${a[i++]}`);
      j++;
    } else if (i < a.length && (j === b.length || lcs[i + 1][j] >= lcs[i][j + 1])) out.push(`  - ${a[i++]}`);
    else out.push(`  + ${b[j++]}`);
  }
  return out.join('\n');
}
