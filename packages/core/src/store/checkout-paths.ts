import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { Execution, Run } from '../types.js';
import type { NewRun, Store } from './store.js';

/**
 * A run's paths as the store keeps them: relative to the checkout (the project root) when they
 * lie inside it, so workers whose checkouts sit at different paths on different machines each
 * find the run's workspace, workflow file and agent sessions in their own checkout. A path
 * outside the checkout (a SHOP_HOME elsewhere), and every path recorded before, stays absolute:
 * read as it is.
 */
export interface CheckoutPaths {
  /** What the store keeps for a path this process uses. */
  stored(path: string): string;
  /** The path this process uses for what the store keeps (relative: under this checkout). */
  local(path: string): string;
}

export function checkoutPaths(root: string): CheckoutPaths {
  const base = resolve(root);
  // A run's few paths are read again and again (every execution of a long run): resolved once.
  const resolved = new Map<string, string>();
  return {
    stored(path) {
      if (!isAbsolute(path)) return path;
      const rel = relative(base, path);
      if (rel === '') return '.';
      if (rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return path;
      return sep === '/' ? rel : rel.split(sep).join('/');
    },
    local(path) {
      if (isAbsolute(path)) return path;
      let found = resolved.get(path);
      if (found === undefined) {
        found = resolve(base, path);
        if (resolved.size < 1024) resolved.set(path, found);
      }
      return found;
    },
  };
}

/** The store methods that write a run's or a call's paths, and how their arguments are kept. */
const WRITES: Record<string, (paths: CheckoutPaths, args: unknown[]) => unknown[]> = {
  createRun: (p, [input, ...rest]) => [storedRun(p, input as NewRun), ...rest],
  queueRun: (p, [input, ...rest]) => [storedRun(p, input as NewRun), ...rest],
  setWorkspace: (p, [token, runId, workspace, ...rest]) => [token, runId, p.stored(workspace as string), ...rest],
  startExecution: (p, [token, input, ...rest]) => {
    const call = input as { cwd: string | null; child?: NewRun };
    const cwd = call.cwd === null ? null : p.stored(call.cwd);
    return [token, { ...call, cwd, ...(call.child ? { child: storedRun(p, call.child) } : {}) }, ...rest];
  },
};

/** A claim's filter sees the run as this process does. */
const FILTERS: Record<string, number> = { claimQueuedRuns: 4 };

function storedRun<T extends Pick<NewRun, 'workflowPath' | 'workspace'>>(p: CheckoutPaths, run: T): T {
  return { ...run, workflowPath: p.stored(run.workflowPath), workspace: p.stored(run.workspace) };
}

/**
 * The store as this checkout sees it: runs and calls read with their paths under this
 * checkout, written relative to it. Every result is looked through for runs and calls (a run
 * has `workflowPath`, a call `fingerprint`), whatever the method, so a new read cannot miss it.
 */
export function withCheckoutPaths<S extends Store>(store: S, root: string): S {
  const paths = checkoutPaths(root);
  const localize = (value: unknown): unknown => localized(paths, value);
  // One wrapper per method, made on its first use (a step calls the store a dozen times).
  const wrapped = new Map<string, { of: unknown; fn: unknown }>();
  return new Proxy(store, {
    get(target, prop) {
      const value = Reflect.get(target, prop) as unknown;
      if (typeof value !== 'function' || typeof prop !== 'string') return value;
      const known = wrapped.get(prop);
      if (known?.of === value) return known.fn;
      // Own keys only: a method named like Object.prototype's (toString) is no write.
      const write = Object.hasOwn(WRITES, prop) ? WRITES[prop] : undefined;
      const filterAt = Object.hasOwn(FILTERS, prop) ? FILTERS[prop] : undefined;
      const fn = function (this: unknown, ...args: unknown[]) {
        if (write) args = write(paths, args);
        if (filterAt !== undefined && typeof args[filterAt] === 'function') {
          const accept = args[filterAt] as (run: Run) => boolean;
          args[filterAt] = (run: Run) => accept(localized(paths, run) as Run);
        }
        const result = (value as (...a: unknown[]) => unknown).apply(target, args);
        return result instanceof Promise ? result.then(localize) : localize(result);
      };
      wrapped.set(prop, { of: value, fn });
      return fn;
    },
  });
}

/**
 * Runs and calls in a result with local paths: alone, in an array, or in a pair such as
 * `{ run, execution }` (alone or in an array).
 */
function localized(paths: CheckoutPaths, value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    if (depth > 0 || !value.length || !looksMapped(value[0])) return value;
    return value.map((v) => localized(paths, v, depth + 1));
  }
  const o = value as Record<string, unknown>;
  if (typeof o.workflowPath === 'string' && typeof o.workspace === 'string') {
    const run = o as unknown as Run & { waiting?: Execution | null; waitsOn?: Execution[]; running?: Execution | null };
    const out: Record<string, unknown> = {
      ...run,
      workflowPath: paths.local(run.workflowPath),
      workspace: paths.local(run.workspace),
    };
    if (run.waiting) out.waiting = localCall(paths, run.waiting);
    if (run.running) out.running = localCall(paths, run.running);
    if (Array.isArray(run.waitsOn)) out.waitsOn = run.waitsOn.map((e) => localCall(paths, e));
    return out;
  }
  if (typeof o.fingerprint === 'string')
    // A call; what replay reads of one (no cwd) has no path: a long run's log is handed back as it is.
    return 'cwd' in o ? localCall(paths, o as unknown as Execution) : value;
  if (depth > 1) return value;
  // A pair such as { run, execution } or { run, created }.
  let changed: Record<string, unknown> | null = null;
  for (const [k, v] of Object.entries(o)) {
    if (v === null || typeof v !== 'object') continue;
    const mapped = localized(paths, v, depth + 1);
    if (mapped !== v) (changed ??= { ...o })[k] = mapped;
  }
  return changed ?? value;
}

function looksMapped(v: unknown): boolean {
  if (v === null || typeof v !== 'object') return false;
  const o = v as Record<string, unknown>;
  return typeof o.workflowPath === 'string' || typeof o.fingerprint === 'string' || 'run' in o;
}

function localCall(paths: CheckoutPaths, e: Execution): Execution {
  return e.cwd === null || isAbsolute(e.cwd) ? e : { ...e, cwd: paths.local(e.cwd) };
}
