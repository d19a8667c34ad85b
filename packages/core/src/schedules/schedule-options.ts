import { UsageError } from '../errors.js';
import { inert, quoted } from '../text.js';

/**
 * What a due slot does while the schedule's previous run is still active: `skip` (the default)
 * records the slot as skipped, `queue` queues its run behind the active one, `allow` starts it
 * beside it.
 */
export const OVERLAPS = ['skip', 'queue', 'allow'] as const;
export type Overlap = (typeof OVERLAPS)[number];
export const DEFAULT_OVERLAP: Overlap = 'skip';

/**
 * Which missed slots fire after the schedule could not fire on time (every worker down, the
 * machine asleep): `none`, `latest` (the default: one run for them all) or `all`. See dueSlots.
 */
export const CATCH_UPS = ['none', 'latest', 'all'] as const;
export type CatchUp = (typeof CATCH_UPS)[number];
export const DEFAULT_CATCH_UP: CatchUp = 'latest';

/** One of `choices` as a person typed it (any case, spaces around), or a UsageError naming them all. */
function oneOf<T extends string>(what: string, choices: readonly T[], fallback: T, text: string): T {
  const word = text.trim().toLowerCase();
  const found = choices.find((c) => c === word);
  if (found) return found;
  const named = choices.map((c) => (c === fallback ? `${c} (the default)` : c)).join(', ');
  throw new UsageError(`${what} ${quoted(inert(text, false))} is not one of ${named}`);
}

/** An overlap policy a person gave: "skip", "queue" or "allow". */
export const parseOverlap = (text: string): Overlap => oneOf('overlap', OVERLAPS, DEFAULT_OVERLAP, text);

/** A catch-up policy a person gave: "none", "latest" or "all". */
export const parseCatchUp = (text: string): CatchUp => oneOf('catch-up', CATCH_UPS, DEFAULT_CATCH_UP, text);
