import { displayStatus } from '@shop/core';
import type { RunEvent, ShopOperations } from '@shop/core';
import { useMemo, useRef, useState } from 'react';
import { moveCursor, windowStart } from '../../components/window.js';
import { executionTree, type TreeRow } from '../../format/exec-tree.js';
import { useReload } from '../../hooks/use-reload.js';

const KEPT_EVENTS = 100;
/** How many of a run's latest calls the details read (every open one too): a long run's whole log is for shop log. */
export const DETAIL_CALLS = 500;

export interface DetailLayout {
  execs: number;
  log: number;
  audit: number;
}

/**
 * One run's details, read again when the run changes: its executions as a tree with a
 * selected call (first the one asked for, else the one waiting or working), that call's
 * log tail (read each tick: agents write it without touching the store), the audit trail.
 */
export function useDetailState(
  ops: ShopOperations,
  runId: number,
  changedAt: number,
  tick: number,
  firstKey: string | null,
  layout: DetailLayout,
  paused: boolean,
) {
  // The trail only grows: read what came after the last event seen, keep the newest.
  const trail = useRef<RunEvent[]>([]);
  const data = useReload(
    async () => {
      const view = await ops.runView(runId, { last: DETAIL_CALLS });
      const last = trail.current.at(-1)?.id;
      const more = await ops.events(runId, last);
      // Two loads may overlap: take each event once.
      const newest = trail.current.at(-1)?.id ?? 0;
      trail.current = [...trail.current, ...more.filter((e) => e.id > newest)].slice(-KEPT_EVENTS);
      return { view, events: trail.current };
    },
    `${runId}:${changedAt}`,
    paused,
  );
  const current = data?.view.run.id === runId ? data : null;
  const tree = useMemo(() => (current ? executionTree(current.view.executions) : []), [current]);
  const [key, setKey] = useState<string | null>(firstKey);
  const start = useRef(0);

  let cursor = tree.findIndex((r) => r.exec.key === key);
  if (cursor < 0) cursor = defaultCursor(tree);
  start.current = windowStart(start.current, cursor, layout.execs, tree.length);
  const selected = tree[cursor]?.exec ?? null;
  const log = useMemo(
    () => (selected ? ops.callLog(selected, layout.log) : null),
    // eslint-disable-next-line react-hooks/exhaustive-deps -- the call is read again when its key or attempts move, not for a new object of the same call
    [selected?.key, selected?.attempts, tick, layout.log],
  );

  return {
    view: current?.view ?? null,
    status: current ? displayStatus(current.view.run, ops.liveness) : null,
    events: current?.events.slice(-layout.audit) ?? [],
    rows: tree.slice(start.current, start.current + layout.execs),
    windowStart: start.current,
    cursor,
    count: tree.length,
    /** Calls older than those read (none but the latest DETAIL_CALLS and the open ones are). */
    earlier: current ? current.view.calls - current.view.executions.length : 0,
    selected,
    log,
    move(command: string) {
      setKey((prev) => {
        const from = tree.findIndex((r) => r.exec.key === prev);
        const to = moveCursor(
          from < 0 ? defaultCursor(tree) : from,
          tree.length,
          command,
          Math.max(1, layout.execs - 1),
        );
        return tree[to]?.exec.key ?? null;
      });
    },
  };
}
export type DetailState = ReturnType<typeof useDetailState>;

/** The call a person most likely wants: the first waiting one, else the last working one, else the last. */
function defaultCursor(tree: TreeRow[]): number {
  const waiting = tree.findIndex((r) => r.exec.status === 'waiting_human');
  if (waiting >= 0) return waiting;
  const running = tree.map((r) => r.exec.status === 'running' && r.exec.kind !== 'parallel').lastIndexOf(true);
  return running >= 0 ? running : tree.length - 1;
}
