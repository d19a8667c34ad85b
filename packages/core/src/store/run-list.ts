import { toExecution, toRun, type Row } from './rows.js';
import type { RunStatus } from '../types.js';
import type { RunFilter, RunWithWaiting } from './store.js';

/** One condition of listRuns and countRuns on the runs table, as data: each adapter words it in its SQL. */
export type RunCondition =
  | { kind: 'status'; status: RunStatus }
  /** Not ended: queued, running, or waiting on the world or a person. */
  | { kind: 'active' }
  /** Held (a rule file changed during one of its steps). */
  | { kind: 'held' }
  | { kind: 'changedSince'; after: number };

/** Which runs listRuns reads, newest first by id: every condition holds; `limit` null is all. */
export interface RunListShape {
  conditions: RunCondition[];
  limit: number | null;
}

/**
 * A filter as the shape both adapters turn into their SQL, every condition in SQL so an index
 * does the work (runs_status, runs_held, runs_updated) and `LIMIT n` reads n rows, not the table.
 */
export function runListShape(filter: RunFilter): RunListShape {
  const conditions: RunCondition[] = [];
  if (filter.status) conditions.push({ kind: 'status', status: filter.status });
  if (filter.active) conditions.push({ kind: 'active' });
  if (filter.held) conditions.push({ kind: 'held' });
  if (filter.changedSince !== undefined) conditions.push({ kind: 'changedSince', after: filter.changedSince });
  const limit = filter.limit !== undefined && filter.limit > 0 ? Math.floor(filter.limit) : null;
  return { conditions, limit };
}

/**
 * listRuns' rows with what each adapter read beside them for those runs only: the call each
 * waits on (the first waiting one), the latest activity of a call running now, the total cost.
 */
export function withExtras(rows: Row[], extras: { waiting: Row[]; running: Row[]; costs: Row[] }): RunWithWaiting[] {
  const waiting = new Map<number, Row>();
  const waitsOn = new Map<number, Row[]>();
  for (const w of extras.waiting) {
    const id = Number(w.run_id);
    if (w.status === 'waiting') waitsOn.set(id, [...(waitsOn.get(id) ?? []), w]);
    else if (!waiting.has(id)) waiting.set(id, w);
  }
  const running = new Map<number, Row>();
  for (const e of extras.running) running.set(Number(e.run_id), e);
  const costs = new Map<number, number>();
  for (const c of extras.costs) costs.set(Number(c.run_id), Number(c.cost));
  return rows.map(toRun).map((r) => {
    const w = r.status === 'waiting_human' ? waiting.get(r.id) : undefined;
    const now = running.get(r.id);
    return {
      ...r,
      waiting: w ? toExecution(w) : null,
      waitsOn: (waitsOn.get(r.id) ?? []).map(toExecution),
      running: now ? toExecution(now) : null,
      costUsd: costs.get(r.id) ?? 0,
    };
  });
}
