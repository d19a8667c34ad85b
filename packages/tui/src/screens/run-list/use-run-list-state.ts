import { displayStatus, hasEnded } from '@shop/core';
import type { Liveness, RunWithWaiting } from '@shop/core';
import { useMemo, useRef, useState } from 'react';
import { moveCursor, windowStart } from '../../components/window.js';
import { useSyncState } from '../../hooks/use-sync-state.js';
import { matches, runActivity } from '../../format/run-row.js';
import { age, usd } from '../../format/time.js';
import type { Runs } from '../../hooks/use-runs.js';
import type { RunRowModel } from './RunRow.js';

/**
 * The run list's state: the filter (`/`), active only (`a`), and a cursor that stays on
 * its run while others come and go. Only the window's rows are turned into row models.
 */
export function useRunListState(runs: Runs, liveness: Liveness, heightFor: (filtering: boolean) => number) {
  const [filter, setFilter] = useState('');
  const [filteringNow, setFilteringState] = useSyncState(() => false);
  const filtering = filteringNow();
  const [activeOnly, setActiveOnly] = useState(false);
  const [sel, setSel] = useState<{ cursor: number; id: number | null }>({ cursor: 0, id: null });
  const start = useRef(0);
  const height = heightFor(filtering);

  // A text filter reads statuses, which move with time (a driver gone): look again each tick.
  const shown = useMemo(() => {
    if (!filter.trim() && !activeOnly) return runs.runs;
    return runs.runs.filter((r) => (!activeOnly || !hasEnded(r)) && matches(r, displayStatus(r, liveness), filter));
    // eslint-disable-next-line react-hooks/exhaustive-deps -- the run cache changes in place: its version (and the tick, for a text filter) says when
  }, [runs.version, filter, activeOnly, filter ? runs.tick : 0]);

  const cursor = cursorIn(sel, shown);
  start.current = windowStart(start.current, cursor, height, shown.length);
  const now = liveness.clock.now();
  const rows = shown
    .slice(start.current, start.current + height)
    .map((r) => rowModel(r, displayStatus(r, liveness), now));

  return {
    rows,
    height,
    cursor,
    windowStart: start.current,
    count: shown.length,
    total: runs.runs.length,
    selected: (shown[cursor] as RunWithWaiting | undefined) ?? null,
    filter,
    filtering,
    activeOnly,
    move(command: string) {
      // From the latest state: keys typed faster than frames each count.
      setSel((prev) => {
        const to = moveCursor(cursorIn(prev, shown), shown.length, command, Math.max(1, height - 1));
        return { cursor: to, id: shown[to]?.id ?? null };
      });
    },
    setFilter(text: string) {
      setFilter(text);
      start.current = 0;
    },
    /** A key typed on the filter line, applied to the filter as it is by then. */
    editFilter(edit: (filter: string) => string | null) {
      setFilter((f) => edit(f) ?? f);
    },
    setFiltering: (on: boolean) => setFilteringState(() => on),
    filteringNow,
    toggleActive: () => setActiveOnly((a) => !a),
  };
}
export type RunListState = ReturnType<typeof useRunListState>;

/** The cursor stays on its run while runs come and go; on the same row when its run is gone. */
function cursorIn(sel: { cursor: number; id: number | null }, shown: readonly RunWithWaiting[]): number {
  const cursor = Math.min(sel.cursor, Math.max(0, shown.length - 1));
  if (sel.id === null || shown[cursor]?.id === sel.id) return cursor;
  const at = shown.findIndex((r) => r.id === sel.id);
  return at >= 0 ? at : cursor;
}

function rowModel(run: RunWithWaiting, status: string, now: number): RunRowModel {
  const { agent, what } = runActivity(run, status);
  return {
    id: run.id,
    spec: run.parentId === null ? run.spec : `↳ ${run.spec}`,
    status,
    agent,
    what,
    age: age(now - run.createdAt),
    cost: usd(run.costUsd),
  };
}
