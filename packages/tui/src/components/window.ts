/**
 * The first visible row of a windowed list: the previous start, moved just enough to keep
 * the cursor in view, and never past the end. Only the rows in the window are rendered.
 */
export function windowStart(start: number, cursor: number, height: number, count: number): number {
  if (height <= 0 || count <= height) return 0;
  let s = Math.min(start, count - height);
  if (cursor < s) s = cursor;
  if (cursor >= s + height) s = cursor - height + 1;
  return Math.max(0, s);
}

/** The cursor after a move command, clamped to the list. */
export function moveCursor(cursor: number, count: number, command: string, page: number): number {
  const last = Math.max(0, count - 1);
  const to: Record<string, number> = {
    up: cursor - 1,
    down: cursor + 1,
    pageUp: cursor - page,
    pageDown: cursor + page,
    top: 0,
    bottom: last,
  };
  return to[command] === undefined ? cursor : Math.min(last, Math.max(0, to[command]));
}
