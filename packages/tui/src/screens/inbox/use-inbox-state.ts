import type { Execution, Run, ShopOperations } from '@shop/core';
import { useRef, useState } from 'react';
import { moveCursor, windowStart } from '../../components/window.js';
import { askerName } from '../../format/run-row.js';
import { duration, oneLine } from '../../format/time.js';
import { useReload } from '../../hooks/use-reload.js';

export interface AskRow {
  runId: number;
  spec: string;
  key: string;
  from: string;
  awaiting: string;
  question: string;
  waited: string;
  /** Who claimed it ("I'm on it"), while the claim lasts. */
  claimedBy: string;
}

/** Every pending ask across runs, oldest first, read again whenever a run changed. */
export function useInboxState(ops: ShopOperations, version: number, visible: boolean, height: number) {
  const asks = useReload(visible ? () => ops.waitingAsks() : null, `inbox:${version}`) ?? [];
  const [cursorAt, setCursor] = useState(0);
  const start = useRef(0);
  const cursor = Math.min(cursorAt, Math.max(0, asks.length - 1));
  start.current = windowStart(start.current, cursor, height, asks.length);
  const now = ops.liveness.clock.now();
  const rows = asks
    .slice(start.current, start.current + height)
    .map(({ run, execution }) => askRow(run, execution, now));
  const selected = asks[cursor] ?? null;
  return {
    rows,
    cursor,
    windowStart: start.current,
    count: asks.length,
    selected: selected ? { runId: selected.run.id, key: selected.execution.key } : null,
    move: (command: string) =>
      setCursor((c) =>
        moveCursor(Math.min(c, Math.max(0, asks.length - 1)), asks.length, command, Math.max(1, height - 1)),
      ),
  };
}
export type InboxState = ReturnType<typeof useInboxState>;

/** Who claimed the ask, while the claim lasts: one that ages out between two reads is not shown. */
export const claimant = (exec: Execution, now: number): string =>
  exec.claim && exec.claim.until > now ? exec.claim.by : '';

function askRow(run: Run, exec: Execution, now: number): AskRow {
  return {
    runId: run.id,
    spec: run.spec,
    key: exec.key,
    from: askerName(exec),
    awaiting: exec.awaiting ?? 'input',
    question: oneLine(exec.waitingFor),
    waited: duration(now - exec.updatedAt),
    claimedBy: claimant(exec, now),
  };
}
