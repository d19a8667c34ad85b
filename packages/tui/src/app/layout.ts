import type { DetailLayout } from '../screens/detail/use-detail-state.js';

/**
 * How the screen's rows are shared. Ink redraws the whole terminal on every frame once the
 * output reaches its height, so the frame stays one row short of it.
 */
export function layoutFor(rows: number, filtering: boolean): { list: number; detail: DetailLayout } {
  const body = Math.max(6, rows - 1 - 3); // the status (two lines) and hint lines
  const list = Math.max(1, body - 2 - (filtering ? 1 : 0)); // title, column titles
  const log = body >= 34 ? 6 : 3;
  const audit = body >= 34 ? 6 : 3;
  // title, status, reason, facts, "Executions", the call's line, "Audit trail"
  const execs = Math.max(2, body - 7 - log - audit);
  return { list, detail: { execs, log, audit } };
}
