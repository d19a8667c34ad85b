import { inert } from '@shop/core';
import { cutToWidth, textWidth } from './text-width.js';

export interface TableOptions {
  /** Fit the lines into this many columns (a terminal's width); undefined: whole lines. */
  width?: number;
  /** The columns that may be cut to fit, first cut first (free text: a question, a reason). */
  shrink?: number[];
  /** Styles a cell after layout (colour): gets the cell's plain text, cut and unpadded. */
  style?: (column: number, text: string) => string;
}

/** Narrowest a shrinking column gets (its header is cut too). */
const MIN_COLUMN = 8;

/**
 * Left-aligned columns, widths from the content in terminal columns (a CJK character or an
 * emoji takes two, a combining mark none). With a width, the `shrink` columns are cut (ending
 * in "…") until each line fits, never wrapped; the last column is not padded.
 */
export function table(header: string[], given: string[][], opts: TableOptions = {}): string[] {
  // Escaped before layout, so widths count what will be shown (an escape is 4 characters).
  const rows = given.map((r) => r.map((c) => inert(c, false)));
  const widths = header.map((h, i) => Math.max(textWidth(h), ...rows.map((r) => textWidth(r[i] ?? ''))));
  if (opts.width !== undefined) fit(widths, opts.width, opts.shrink ?? [header.length - 1]);
  const fmt = (r: string[], style?: TableOptions['style']) => {
    const line = (s?: TableOptions['style']) =>
      r
        .map((c, i) => {
          const text = cut(c, widths[i]);
          const styled = s ? s(i, text) : text;
          return i === r.length - 1 ? styled : styled + ' '.repeat(widths[i] - textWidth(text));
        })
        .join('  ')
        .trimEnd();
    const plain = line();
    // Still too wide with every shrinkable column at its narrowest: cut the line itself.
    if (opts.width !== undefined && textWidth(plain) > opts.width) return cut(plain, opts.width);
    return style ? line(style) : plain;
  };
  return [fmt(header), ...rows.map((r) => fmt(r, opts.style))];
}

/** Narrows the shrinkable columns, first listed first, until the line fits or none can give more. */
function fit(widths: number[], width: number, shrink: number[]): void {
  const total = () => widths.reduce((a, b) => a + b, 0) + 2 * (widths.length - 1);
  for (const i of shrink) {
    const over = total() - width;
    if (over <= 0) return;
    const floor = Math.min(widths[i], MIN_COLUMN);
    widths[i] = Math.max(floor, widths[i] - over);
  }
}

/** `text` in at most `width` terminal columns, cut with "…". */
export const cut = cutToWidth;

export function ago(from: number, now = Date.now()): string {
  const s = Math.max(0, Math.round((now - from) / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86400) return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`;
  return `${Math.floor(s / 86400)}d`;
}

export const usd = (n: number) => `$${n.toFixed(4)}`;

/** A cost in a list: "$0.12", "<$0.01", or "-" for none. */
export const cost = (n: number) => (n <= 0 ? '-' : n < 0.01 ? '<$0.01' : `$${n.toFixed(2)}`);
