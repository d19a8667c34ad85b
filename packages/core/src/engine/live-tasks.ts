import { LostOwnershipError, ShopError } from '../errors.js';
import { withoutNul } from '../store/nul-free.js';
import type { Execution } from '../types.js';
import { Aborted, type Settled } from './outcome.js';
import { Slots } from './slots.js';
import { within } from './strands.js';

/** What a task ended in that the scheduler must act on, in its own loop. */
export type TaskProblem =
  { kind: 'failed'; key: string; error: ShopError } | { kind: 'lost' } | { kind: 'crashed'; error: unknown };

interface Task {
  abort: AbortController;
  done: Promise<void>;
  /** Holds one of the run's max_parallel slots (agents and commands do; answer checks do not). */
  working: boolean;
}

/**
 * The run's calls in flight in the world, and the calls waiting for a person. A task
 * settles into a delivery (handed to Lua in delivery order), a wait, or a problem; the
 * scheduler's loop takes them in order. Work beyond max_parallel queues (pull, not push).
 */
export class LiveTasks {
  private readonly tasks = new Map<string, Task>();
  /** The run's max_parallel. */
  readonly slots = new Slots();
  readonly deliveries = new Map<number, { key: string; value: unknown }>();
  readonly waiting = new Map<string, Execution>();
  readonly problems: TaskProblem[] = [];

  /** `shared`: slots across runs (shop watch --max-parallel), taken after the run's own. */
  constructor(
    private readonly wake: () => void,
    private readonly onWaiting: (exec: Execution, fresh: boolean) => void,
    private readonly shared?: Slots,
  ) {}

  get size(): number {
    return this.tasks.size;
  }

  has(key: string): boolean {
    return this.tasks.has(key);
  }

  /** Starts `body` for `key`; `working` tasks wait for a free slot first. */
  launch(
    key: string,
    working: boolean,
    body: (signal: AbortSignal) => Promise<Settled | null>,
    onIdle?: () => void,
  ): void {
    const abort = new AbortController();
    const task: Task = { abort, done: Promise.resolve(), working };
    this.tasks.set(key, task);
    task.done = (async () => {
      const held: Slots[] = [];
      try {
        for (const slots of working ? [this.slots, this.shared] : []) {
          if (slots && (await slots.acquire(abort.signal))) held.push(slots);
        }
        if (abort.signal.aborted) throw new Aborted();
        const settled = await body(abort.signal);
        if (!settled) onIdle?.();
        // Lua is handed the result as the store keeps it, so a replay hands it the same (nul-free.ts).
        else if (settled.kind === 'value')
          this.deliveries.set(settled.delivered, { key, value: withoutNul(settled.value) });
        else {
          this.waiting.set(key, settled.execution);
          this.onWaiting(settled.execution, settled.fresh);
        }
      } catch (e) {
        // An aborted task was stopped on purpose: whatever it threw on the way out is moot.
        if (!abort.signal.aborted) this.problems.push(problemOf(key, e));
      } finally {
        for (const slots of held) slots.release();
        this.tasks.delete(key);
        this.wake();
      }
    })();
  }

  /** Aborts the tasks of the given threads (all when none given) and waits until they are gone. */
  async abort(paths?: string[]): Promise<string[]> {
    const keys = [...this.tasks.keys()].filter((k) => !paths || paths.some((p) => within(k, p)));
    const tasks = keys.map((k) => this.tasks.get(k)!);
    for (const t of tasks) t.abort.abort();
    await Promise.all(tasks.map((t) => t.done));
    return keys;
  }

  /** Calls waiting for a person in the given threads, dropped from the wait list. */
  dropWaiting(paths: string[]): string[] {
    const keys = [...this.waiting.keys()].filter((k) => paths.some((p) => within(k, p)));
    for (const k of keys) this.waiting.delete(k);
    return keys;
  }
}

function problemOf(key: string, e: unknown): TaskProblem {
  if (e instanceof LostOwnershipError) return { kind: 'lost' };
  if (e instanceof Aborted) return { kind: 'crashed', error: new Error(`call ${key} stopped without being asked to`) };
  if (e instanceof ShopError) return { kind: 'failed', key, error: e };
  return { kind: 'crashed', error: e };
}
