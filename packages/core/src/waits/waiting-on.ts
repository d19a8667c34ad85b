import { localTime } from '../local-time.js';
import type { Execution, WaitKind } from '../types.js';

/** What a run waits on when no person is asked: one entry per waiting call (`--json` waiting_on). */
interface WaitingOnJson {
  kind: WorldWaitKind;
  /** The waiting call's key. */
  key: string;
  /** When it is due (ISO 8601): a timer's time, or a wait's timeout; null when it has none. */
  until: string | null;
  /** An event's name, and the key it must carry (null: any). */
  name?: string;
  event_key?: string | null;
  /** The run it waits for. */
  run_id?: number;
}

type WorldWaitKind = Exclude<WaitKind, 'person'>;

const iso = (t: number | null) => (t == null ? null : new Date(t).toISOString());
const field = (e: Execution, name: string): unknown => (e.request as Record<string, unknown> | null)?.[name];

/**
 * How each kind of wait is shown: as data, and in words. A mapped type over the kinds, so a
 * new kind of wait does not compile until it says how it is shown.
 */
const SHOWN: { [K in WorldWaitKind]: { json(e: Execution): WaitingOnJson; words(e: Execution, now: number): string } } =
  {
    timer: {
      json: (e) => ({ kind: 'timer', key: e.key, until: iso(e.waitUntil) }),
      words: (e, now) => (e.waitUntil === null ? 'timer' : `timer until ${shortTime(e.waitUntil, now)}`),
    },
    event: {
      json: (e) => ({
        kind: 'event',
        key: e.key,
        until: iso(e.waitUntil),
        name: String(field(e, 'name') ?? ''),
        event_key: (field(e, 'key') as string | undefined) ?? null,
      }),
      words: (e) => `event ${String(field(e, 'name') ?? '')}${field(e, 'key') ? ` (${String(field(e, 'key'))})` : ''}`,
    },
    run: {
      json: (e) => ({ kind: 'run', key: e.key, until: iso(e.waitUntil), run_id: Number(field(e, 'run_id')) }),
      words: (e) =>
        `run ${Number(field(e, 'run_id'))}${field(e, 'workflow') ? ` (${String(field(e, 'workflow'))})` : ''}`,
    },
  };

const kindOf = (e: Execution): WorldWaitKind => (e.waitKind && e.waitKind !== 'person' ? e.waitKind : 'timer');

/** The run's calls waiting on the world, as `waiting_on` lists them. */
export function waitingOnJson(waits: Execution[]): WaitingOnJson[] {
  return waits.map((e) => SHOWN[kindOf(e)].json(e));
}

/** "timer until 09:00:00 +01:00", "event ci.finished (pr-42)": what the run waits on, in words (`waiting_for`). */
export function waitingOnWords(waits: Execution[], now = Date.now()): string | null {
  return waits.length ? waits.map((e) => SHOWN[kindOf(e)].words(e, now)).join(', ') : null;
}

/** The local time with its offset; the date too unless it is today's. */
export function shortTime(ms: number, now = Date.now()): string {
  const full = localTime(ms);
  return full.slice(0, 10) === localTime(now).slice(0, 10) ? full.slice(11) : full;
}
