import { describe, expect, it } from 'vitest';
import { LOG_LINE_BYTES, logLine, luaText } from './lua-text.js';

const bytes = (s: string) => new TextEncoder().encode(s);

describe('Lua bytes as JS text, bounded', () => {
  it('cuts where a UTF-8 character starts, never inside one', () => {
    expect(luaText(bytes('aé€😀'), 3)).toBe('aé');
    expect(luaText(bytes('aé€😀'), 5)).toBe('aé');
    expect(luaText(bytes('aé€😀'), 6)).toBe('aé€');
    expect(luaText(bytes('aé€😀'), 100)).toBe('aé€😀');
  });

  it('shows bytes that are not UTF-8 as U+FFFD instead of failing', () => {
    expect(luaText(new Uint8Array([0x61, 0xff, 0x62]), 10)).toBe('a\uFFFDb');
  });
});

describe('a log line', () => {
  it('joins its parts with tabs and keeps a short line whole', () => {
    expect(logLine([bytes('a'), bytes('b c'), bytes('')])).toBe('a\tb c\t');
    expect(logLine([new Uint8Array(LOG_LINE_BYTES).fill(0x78)])).toBe('x'.repeat(LOG_LINE_BYTES));
  });

  it('is cut at 64 KiB, saying how long it was', () => {
    expect(logLine([new Uint8Array(LOG_LINE_BYTES + 1).fill(0x78)])).toBe(
      `${'x'.repeat(LOG_LINE_BYTES)}… [cut: the line had 65537 bytes; a log line keeps its first 64 KiB]`,
    );
    const parts = [bytes('head'), new Uint8Array(3 * 1024 * 1024).fill(0x79), bytes('tail')];
    expect(logLine(parts)).toBe(
      `head\t${'y'.repeat(LOG_LINE_BYTES - 5)}… [cut: the line had 3 MB; a log line keeps its first 64 KiB]`,
    );
  });
});
