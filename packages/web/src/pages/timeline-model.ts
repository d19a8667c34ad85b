import type { EventJson, ExecutionJson, PendingJson } from '@shop/core';

/** One call drawn as a bar from its start to its end (or to now while it lasts). */
export interface Bar {
  key: string;
  kind: ExecutionJson['kind'];
  agent: string | null;
  status: ExecutionJson['status'];
  start: number;
  end: number;
  /** Still going: its end is "now". */
  open: boolean;
  /** Spans in which it waited for a person (shaded). */
  waits: [number, number][];
}

/** A strand of the workflow: the main script, or one branch of a parallel() ("4/1"). */
export interface Lane {
  id: string;
  label: string;
  bars: Bar[];
}

export interface TimelineModel {
  start: number;
  end: number;
  /** Where "now" is, while some call still goes on (the picture grows to it); else null. */
  now: number | null;
  lanes: Lane[];
}

/** The strand a call belongs to: its key without the last step ("4/1/2" → "4/1"; "3" → main). */
export const laneOf = (key: string): string => (key.includes('/') ? key.slice(0, key.lastIndexOf('/')) : '');

/**
 * The timeline of a run as numbers: each started call a bar in its strand's lane (lanes in
 * the order they first appear, so a parallel's branches sit under it, side by side), and the
 * spans each waited for a person — from the `waiting` event to `human_answered`, or, for an
 * ask still open, from its waiting_since to now. Pure: `now` is given.
 */
export function timelineModel(
  executions: ExecutionJson[],
  events: EventJson[],
  asks: Pick<PendingJson, 'key' | 'waiting_since'>[],
  now: number,
): TimelineModel {
  const waits = waitSpans(events, executions, asks, now);
  const bars: (Bar & { seq: number })[] = [];
  for (const e of [...executions].sort((a, b) => a.seq - b.seq)) {
    if (!e.started_at) continue;
    const start = Date.parse(e.started_at);
    const open = !e.finished_at && (e.status === 'running' || e.status === 'waiting' || e.status === 'waiting_human');
    const end = open ? Math.max(start, now) : Math.max(start, e.finished_at ? Date.parse(e.finished_at) : start);
    bars.push({
      key: e.key,
      kind: e.kind,
      agent: e.agent,
      status: e.status,
      start,
      end,
      open,
      waits: (waits.get(e.key) ?? [])
        .map(([a, b]) => [Math.max(a, start), Math.min(b, end)] as [number, number])
        .filter(([a, b]) => b >= a),
      seq: e.seq,
    });
  }
  const lanes = new Map<string, Lane>();
  for (const { seq: _seq, ...bar } of bars) {
    const id = laneOf(bar.key);
    if (!lanes.has(id)) lanes.set(id, { id, label: id ? `branch ${id}` : 'main', bars: [] });
    lanes.get(id)!.bars.push(bar);
  }
  const start = bars.length ? Math.min(...bars.map((b) => b.start)) : now;
  const end = bars.length ? Math.max(...bars.map((b) => b.end)) : now;
  return {
    start,
    end: Math.max(end, start + 1000),
    now: bars.some((b) => b.open) ? now : null,
    lanes: [...lanes.values()],
  };
}

/** Per call key, the spans it waited for a person. */
function waitSpans(
  events: EventJson[],
  executions: ExecutionJson[],
  asks: Pick<PendingJson, 'key' | 'waiting_since'>[],
  now: number,
): Map<string, [number, number][]> {
  const spans = new Map<string, [number, number][]>();
  const opened = new Map<string, number>();
  const add = (key: string, a: number, b: number) => spans.set(key, [...(spans.get(key) ?? []), [a, b]]);
  for (const ev of [...events].sort((a, b) => a.id - b.id)) {
    if (!ev.key) continue;
    if (ev.type === 'waiting' && !opened.has(ev.key)) opened.set(ev.key, Date.parse(ev.at));
    else if (ev.type === 'human_answered' && opened.has(ev.key)) {
      add(ev.key, opened.get(ev.key)!, Date.parse(ev.at));
      opened.delete(ev.key);
    }
  }
  const byKey = new Map(executions.map((e) => [e.key, e]));
  // A wait with no answer yet lasts until the call ended (stopped, failed) or, still open, until now.
  for (const [key, from] of opened) {
    const e = byKey.get(key);
    add(key, from, e?.finished_at ? Date.parse(e.finished_at) : now);
  }
  // An open ask whose `waiting` event is not among the events given: its waiting_since says when.
  for (const ask of asks) {
    if (!ask.waiting_since || opened.has(ask.key)) continue;
    const since = Date.parse(ask.waiting_since);
    if (!(spans.get(ask.key) ?? []).some(([a, b]) => b >= since && a <= since)) add(ask.key, since, now);
  }
  return spans;
}
