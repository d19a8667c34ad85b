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
  /** Null while (or if) its end was never logged: a process that may still be alive. */
  end: number | null;
  code: number | null;
  /** What it reported (its signal), when, in order. */
  reports: { status: string; at: number }[];
  /** What it was about to report: a process killed before 'reported' may or may not have. */
  reporting: { status: string; at: number }[];
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
 * session in start order, a process must have ended (its end logged) before the next began.
 */
export function overlaps(spans: Span[]): string[] {
  const bySession = new Map<string, Span[]>();
  for (const s of spans) bySession.set(s.session, [...(bySession.get(s.session) ?? []), s]);
  const found: string[] = [];
  for (const [session, list] of bySession) {
    list.sort((a, b) => a.start - b.start);
    for (let i = 1; i < list.length; i++) {
      const before = list[i - 1];
      if (before.end === null || before.end > list[i].start) {
        found.push(
          `session ${session} (run ${list[i].run} call ${list[i].call}): pid ${before.pid} (${before.mode}, ${before.start}–${before.end ?? 'never ended'}) and pid ${list[i].pid} (${list[i].mode}, from ${list[i].start})`,
        );
      }
    }
  }
  return found;
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
