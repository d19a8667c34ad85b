import { existsSync, readFileSync } from 'node:fs';

/** One line of the stand-in's SHOP_STANDIN_SPANS file: an agent process starting or ending. */
export interface SpanEvent {
  event: 'start' | 'end' | 'reporting' | 'reported';
  pid: number;
  /** The agent step (SHOP_STEP) it ran in: in a PID namespace every agent's own pid is 2. */
  shop_step?: string | null;
  /** SHOP_HOSTNAME of the worker that started it (tests run several "machines" on one), or null. */
  host?: string | null;
  session_id: string;
  run: string;
  call: string;
  agent: string;
  mode: 'print' | 'interactive';
  at: number;
  code?: number;
  /** Of a 'reported' event: the status it reported. */
  status?: string;
  /** Of a 'start' event (scripts/standin-presence.mjs): its presence on the session, null where none could be held. */
  presence?: string | null;
  /** Of a 'start' event: the others present on the session right after it took its own (alive then), null if unknown. */
  alongside?: string[] | null;
}

export interface Span {
  pid: number;
  shop_step: string | null;
  host: string | null;
  session: string;
  run: string;
  call: string;
  mode: string;
  start: number;
  /** Null while (or if) its end was never logged: still alive, or killed -9 (its presence tells). */
  end: number | null;
  code: number | null;
  /** What it reported (its signal), when, in order. */
  reports: { status: string; at: number }[];
  /** What it was about to report: a process killed before 'reported' may or may not have. */
  reporting: { status: string; at: number }[];
  /** Its presence on the session (held by the kernel exactly while it lives), or null. */
  presence: string | null;
  /** The presences on its session when it started (those processes were alive then), or null if unknown. */
  alongside: string[] | null;
}

export function readSpans(file: string): Span[] {
  if (!existsSync(file)) return [];
  // By host, step and pid: two "machines" may each have a process of one pid, every agent in a
  // PID namespace has its own pid 2 (its step tells them apart); and a pid comes back (pid_max
  // wraps within a long test), so a start opens a new span and later lines go to it.
  const spans = new Map<string, Span>();
  const all: Span[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n').filter(Boolean)) {
    const e = JSON.parse(line) as SpanEvent;
    const id = `${e.host ?? ''}:${e.shop_step ?? ''}:${e.pid}`;
    if (e.event === 'start') {
      const span: Span = {
        pid: e.pid,
        shop_step: e.shop_step ?? null,
        host: e.host ?? null,
        session: e.session_id,
        run: e.run,
        call: e.call,
        mode: e.mode,
        start: e.at,
        end: null,
        code: null,
        reports: [],
        reporting: [],
        presence: e.presence ?? null,
        alongside: e.alongside ?? null,
      };
      spans.set(id, span);
      all.push(span);
    } else if (e.event === 'reporting') spans.get(id)?.reporting.push({ status: e.status ?? 'DONE', at: e.at });
    else if (e.event === 'reported') spans.get(id)?.reports.push({ status: e.status ?? 'DONE', at: e.at });
    else {
      const s = spans.get(id);
      if (s) Object.assign(s, { end: e.at, code: e.code ?? null });
    }
  }
  return all;
}

/**
 * Every pair of agent processes that were alive on one session at the same time: for each
 * session in start order, a process must have ended before the next began. The kernel's word
 * (presences, standin-presence.mjs) comes first: one present when the other took its presence was
 * alive then. Without it, a logged end decides; a process whose end was never logged and of which
 * the kernel said nothing counts as still alive.
 */
export function overlaps(spans: Span[]): string[] {
  const bySession = new Map<string, Span[]>();
  for (const s of spans) bySession.set(s.session, [...(bySession.get(s.session) ?? []), s]);
  const found: string[] = [];
  for (const [session, list] of bySession) {
    list.sort((a, b) => a.start - b.start);
    for (let i = 1; i < list.length; i++) {
      const [before, next] = [list[i - 1], list[i]];
      if (together(before, next)) {
        found.push(
          `session ${session} (run ${next.run} call ${next.call}): pid ${before.pid} (${before.mode}, ${before.start}–${before.end ?? 'never ended'}) and pid ${next.pid} (${next.mode}, from ${next.start})`,
        );
      }
    }
  }
  return found;
}

/** Whether `before` (started first) was still alive when `next` started (presences are told per session: both on one). */
export function together(before: Span, next: Span): boolean {
  const seen = (a: Span, b: Span) => a.presence !== null && !!b.alongside?.includes(a.presence);
  if (seen(before, next) || seen(next, before)) return true;
  if (before.end !== null) return before.end > next.start;
  // Never ended: dead by then only if the kernel was asked (both held a presence) and named neither.
  return before.presence === null || next.alongside === null;
}

/**
 * The agent processes still running now: those whose presence the kernel still holds, and those
 * with no presence whose end was never logged.
 */
export function stillRunning(spans: Span[]): Span[] {
  const held = new Set(heldPresences());
  return spans.filter((s) => (s.presence === null ? s.end === null : held.has(s.presence)));
}

/** The abstract unix socket names held on this machine now (/proc/net/unix; as scripts/standin-presence.mjs reads them). */
function heldPresences(): string[] {
  return readFileSync('/proc/net/unix', 'utf8')
    .split('\n')
    .slice(1)
    .map((line) => line.trim().split(/\s+/)[7])
    .filter((path): path is string => !!path?.startsWith('@'))
    .map((path) => path.slice(1).replace(/@+$/, ''));
}

/** Sessions on which an agent started again after one had finished its work (exit 0). */
export function rerunsAfterCompletion(spans: Span[]): string[] {
  const found: string[] = [];
  for (const s of spans) {
    if (s.code !== 0 || s.end === null) continue;
    const later = spans.filter((o) => o.session === s.session && o.mode === 'print' && o.start >= s.end!);
    if (later.length)
      found.push(
        `session ${s.session} (run ${s.run} call ${s.call}): pid ${s.pid} finished, then pid ${later.map((l) => l.pid).join(', ')} started`,
      );
  }
  return found;
}
