/**
 * A counting semaphore that can be given up while waiting (an abort): work beyond `limit`
 * queues in order (pull, not push). A freed slot passes straight to the next in the queue,
 * so none can jump it. `limit` may change; Infinity never queues.
 */
export class Slots {
  private used = 0;
  private readonly queue: (() => void)[] = [];

  constructor(public limit = Infinity) {}

  /** Waits for a slot; false when aborted before one came free (then nothing is held). */
  acquire(signal: AbortSignal): Promise<boolean> {
    if (signal.aborted) return Promise.resolve(false);
    if (this.used < this.limit) {
      this.used++;
      return Promise.resolve(true);
    }
    return new Promise<boolean>((resolve) => {
      const onAbort = () => {
        const i = this.queue.indexOf(go);
        if (i < 0) return;
        this.queue.splice(i, 1);
        resolve(false);
      };
      const go = () => {
        signal.removeEventListener('abort', onAbort);
        resolve(true);
      };
      this.queue.push(go);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Slots held now (a worker's heartbeat reports its agents running). */
  get inUse(): number {
    return this.used;
  }

  release(): void {
    const next = this.queue.shift();
    if (next) next();
    else this.used--;
  }
}
