import { closeSync, openSync, readSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';

/**
 * Follows a file another process writes (an agent's stdout log) and hands over each complete
 * line as it arrives. The agent writes to its file, not to a pipe of ours, so it outlives a
 * driver that dies; reading the file is how we watch it.
 */
export class LogTail {
  private offset = 0;
  private rest = '';
  /** A character split across two reads is kept whole. */
  private readonly decoder = new StringDecoder('utf8');
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly file: string,
    private readonly onLine: (line: string) => void,
    everyMs = 250,
  ) {
    this.timer = setInterval(() => this.read(), everyMs);
    this.timer.unref();
  }

  /** Reads what is left, the last line included, and stops. */
  stop(): void {
    clearInterval(this.timer);
    this.read();
    if (this.rest) this.onLine(this.rest);
    this.rest = '';
  }

  private read(): void {
    let fd: number;
    try {
      fd = openSync(this.file, 'r');
    } catch {
      return;
    }
    try {
      const buf = Buffer.alloc(64 * 1024);
      for (;;) {
        const n = readSync(fd, buf, 0, buf.length, this.offset);
        if (n <= 0) break;
        this.offset += n;
        const lines = (this.rest + this.decoder.write(buf.subarray(0, n))).split('\n');
        this.rest = lines.pop() ?? '';
        for (const line of lines) if (line) this.onLine(line);
      }
    } finally {
      closeSync(fd);
    }
  }
}
