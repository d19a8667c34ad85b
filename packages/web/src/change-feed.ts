import type { ServerResponse } from 'node:http';
import type { WebOperations } from './web-operations.js';

/** A writer reads the clock a little before its transaction commits: each look goes back this far. */
const MARGIN_MS = 2_000;
const POLL_MS = 1_000;
/** A comment line now and then keeps proxies and idle timeouts from closing the stream. */
const HEARTBEAT_MS = 15_000;
/** Live pages open at once; more are refused (503) rather than slow every poll down. */
export const MAX_LISTENERS = 200;
/**
 * Live pages one person may have open at once (tabs, phone, a laptop): more are refused (429),
 * so one signed-in cookie cannot take every slot from everyone else.
 */
export const MAX_LISTENERS_EACH = 16;

/**
 * Live updates for every open page (GET /events, Server-Sent Events): one poller shared by
 * all listeners reads only the runs changed since its last look (runs are touched on every
 * change — a call, an answer, an agent's activity — and indexed on updated_at) and tells
 * each listener which runs changed; the page refetches itself. Polling stops when nobody listens.
 */
export class ChangeFeed {
  /** Each live page and the check that its person may still listen (revoked: the stream ends). */
  private readonly listeners = new Map<ServerResponse, () => Promise<boolean>>();
  /** How many live pages each person has open. */
  private readonly byOwner = new Map<string, number>();
  private readonly seen = new Map<number, number>();
  /** The newest change seen, by the store's clock (the Clock port: tests move it back and forth). */
  private newest: number;
  private poller: NodeJS.Timeout | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  private polling = false;

  constructor(private readonly ops: Pick<WebOperations, 'changedRuns' | 'now'>, private readonly onError: (e: unknown) => void) {
    this.newest = ops.now();
  }

  get size(): number {
    return this.listeners.size;
  }

  /** How many live pages `owner` has open. */
  countOf(owner: string): number {
    return this.byOwner.get(owner) ?? 0;
  }

  /**
   * Takes over the response as an event stream of `owner`'s until the client goes away, or
   * `allowed` says no (asked before each change is told and at each heartbeat: a revoked person
   * hears nothing more).
   */
  listen(res: ServerResponse, allowed: () => Promise<boolean> = async () => true, owner = '') {
    res.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-store', 'X-Accel-Buffering': 'no' });
    res.write('retry: 2000\n\n');
    this.listeners.set(res, allowed);
    this.byOwner.set(owner, this.countOf(owner) + 1);
    res.once('close', () => {
      this.listeners.delete(res);
      const left = this.countOf(owner) - 1;
      if (left > 0) this.byOwner.set(owner, left);
      else this.byOwner.delete(owner);
      if (!this.listeners.size) this.stop();
    });
    if (!this.poller) {
      this.poller = setInterval(() => void this.poll(), POLL_MS);
      this.heartbeat = setInterval(() => void this.send(': ping\n\n').catch(this.onError), HEARTBEAT_MS);
      void this.poll();
    }
  }

  /** Ends every stream (the server is closing). */
  close() {
    for (const res of this.listeners.keys()) res.end();
    this.listeners.clear();
    this.byOwner.clear();
    this.stop();
  }

  private stop() {
    if (this.poller) clearInterval(this.poller);
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.poller = this.heartbeat = null;
  }

  private async poll() {
    if (this.polling) return;
    this.polling = true;
    try {
      // Never past the clock's now: a clock set back must not hide the changes written after.
      const runs = await this.ops.changedRuns(Math.min(this.newest, this.ops.now()) - MARGIN_MS);
      const changed: number[] = [];
      for (const run of runs) {
        if (this.seen.get(run.id) !== run.updatedAt) changed.push(run.id);
        this.seen.set(run.id, run.updatedAt);
        this.newest = Math.max(Math.min(this.newest, this.ops.now()), run.updatedAt);
      }
      for (const [id, at] of this.seen) if (at < this.newest - 2 * MARGIN_MS) this.seen.delete(id);
      if (changed.length) await this.send(`event: change\ndata: ${JSON.stringify({ runs: changed })}\n\n`);
    } catch (e) {
      this.onError(e);
    } finally {
      this.polling = false;
    }
  }

  private async send(text: string) {
    const checks = [...this.listeners].map(async ([res, allowed]) => ({ res, ok: await allowed().catch(() => false) }));
    for (const { res, ok } of await Promise.all(checks)) {
      if (!this.listeners.has(res)) continue;
      if (ok) res.write(text);
      else {
        this.listeners.delete(res);
        res.end();
      }
    }
  }
}
