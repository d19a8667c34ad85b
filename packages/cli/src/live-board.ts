import { printable } from './style.js';
import { cutToWidth } from './text-width.js';

/** Spinner frames for agents at work. */
const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

interface Live {
  agent: string;
  since: number;
  activity: string;
}

/**
 * On a terminal, one live line per running agent (spinner, elapsed, latest activity) kept at
 * the bottom and redrawn in place; other lines print above it, and an agent's line gives way
 * to its result line when it finishes. Not on a terminal: nothing live, lines as they come.
 */
export class LiveBoard {
  private readonly live = new Map<string, Live>();
  private drawn = 0;
  private frame = 0;
  private timer: NodeJS.Timeout | null = null;
  /** Whether live lines were shown (only then is the terminal's line touched on close). */
  private used = false;

  constructor(
    private readonly stream: NodeJS.WriteStream,
    private readonly now: () => number = Date.now,
  ) {}

  get interactive(): boolean {
    return Boolean(this.stream.isTTY);
  }

  /** A line above the live block. */
  line(text: string): void {
    this.clear();
    this.stream.write(`${printable(text)}\n`);
    this.draw();
  }

  start(key: string, agent: string, since: number): void {
    this.live.set(key, { agent, since, activity: 'starting' });
    this.used = true;
    this.redraw();
  }

  activity(key: string, text: string): void {
    const l = this.live.get(key);
    if (!l) return;
    l.activity = text;
  }

  /** The agent finished: its live line becomes `result`. */
  finish(key: string, result: string): void {
    this.live.delete(key);
    this.line(result);
  }

  close(): void {
    this.clear();
    // Ctrl-C's "^C" echo left the cursor two columns in: what prints next starts at the line's start.
    if (this.used) this.stream.write('\r\x1b[0K');
    this.used = false;
    this.live.clear();
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private redraw() {
    this.clear();
    this.draw();
  }

  private draw() {
    if (!this.live.size) {
      if (this.timer) clearInterval(this.timer);
      this.timer = null;
      return;
    }
    this.timer ??= setInterval(() => this.redraw(), 120).unref();
    const width = this.stream.columns || 80;
    const spin = FRAMES[this.frame++ % FRAMES.length];
    const rows = [...this.live].map(([key, l]) => {
      // One line each, whatever the activity holds: a line feed in it would break the redraw.
      const text = printable(
        `  ${spin} [${key}] ${l.agent} ${elapsed(this.now() - l.since)}  ${l.activity}`.replace(/\n/g, ' '),
      );
      // Shorter than the terminal in columns (wide characters count two): a wrapped line would break the redraw too.
      return cutToWidth(text, width - 1);
    });
    this.stream.write(`${rows.join('\n')}\n`);
    this.drawn = rows.length;
  }

  private clear() {
    if (!this.drawn) return;
    // To the line's start (a "^C" echo moved the cursor), up over the live lines, erasing each.
    this.stream.write(`\r\x1b[${this.drawn}A\x1b[0J`);
    this.drawn = 0;
  }
}

/** "4s", "2m 05s", "1h 02m". */
export function elapsed(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}
