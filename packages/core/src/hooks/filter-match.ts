import type { FilterCondition, HookFilter } from './filter.js';
import { valuesAt } from './payload-path.js';

/** What a filter is judged against: the event header's name (null when none came) and the parsed JSON body. */
export interface FilterInput {
  readonly event: string | null;
  readonly payload: unknown;
}

/** Whether every condition of the filter holds for this delivery (filter.ts says what each means). */
export function matchesFilter(filter: HookFilter, input: FilterInput): boolean {
  return filter.conditions.every((c) => holds(c, input));
}

function holds(c: FilterCondition, { event, payload }: FilterInput): boolean {
  const found = c.target === 'event' ? (event === null ? [] : [event]) : valuesAt(payload, c.target);
  if (c.kind === 'present') return found.some((v) => v !== null) !== c.negated;
  const hit = found.some((v) => {
    const text = comparedText(v);
    return text !== undefined && c.values.includes(text);
  });
  return hit !== c.negated;
}

/** A value as a filter compares it: scalars as JSON writes them (a string bare); objects and lists compare to nothing. */
function comparedText(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean' || v === null) return JSON.stringify(v);
  return undefined;
}
