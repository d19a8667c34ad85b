import type { ServerResponse } from 'node:http';
import { RunChangeFeed } from '@shop/core';
import type { WebOperations } from './web-operations.js';

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
 * Live updates for every open page (GET /events, Server-Sent Events): the pages listen to
 * core's one change feed (RunChangeFeed: one poller, the runs changed since its last look) and
 * each is told which runs changed; the page refetches itself. Polling stops when nobody listens.
 */
export class ChangeFeed {
  /** Each live page and the check that its person may still listen (revoked: the stream ends). */
  private readonly listeners = new Map<ServerResponse, () => Promise<boolean>>();
  /** How many live pages each person has open. */
  private readonly byOwner = new Map<string, number>();
  private readonly changes: RunChangeFeed;
  private unsubscribe: (() => void) | null = null;
  private heartbeat: NodeJS.Timeout | null = null;

  constructor(
    ops: Pick<WebOperations, 'changedRuns' | 'now'>,
    private readonly onError: (e: unknown) => void,
  ) {
    this.changes = new RunChangeFeed(ops, onError);
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
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      'X-Accel-Buffering': 'no',
    });
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
    if (!this.unsubscribe) {
      this.heartbeat = setInterval(() => void this.send(': ping\n\n').catch(this.onError), HEARTBEAT_MS);
      this.unsubscribe = this.changes.subscribe((runs) =>
        this.send(`event: change\ndata: ${JSON.stringify({ runs })}\n\n`),
      );
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
    this.unsubscribe?.();
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.unsubscribe = null;
    this.heartbeat = null;
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
