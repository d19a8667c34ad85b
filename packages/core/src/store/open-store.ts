import { mkdirSync } from 'node:fs';
import { nodeClock } from '../engine/node-clock.js';
import type { Project } from '../project/project.js';
import { storeLocation, type StoreLocation } from './database-url.js';
import { storeError } from './sqlite/sqlite-errors.js';
import { withCheckoutPaths } from './checkout-paths.js';
import type { Store } from './store.js';

/**
 * Opens the project's store (creating and migrating it): PostgreSQL when SHOP_DATABASE_URL is
 * set or the project has a database.url (shop init --database URL), else the SQLite file.
 * Each adapter is loaded only when chosen, so a read command on SQLite never loads `pg`.
 *
 * The clock: SQLite judges by this machine's (SHOP_CLOCK_FILE fast-forwards it in tests);
 * PostgreSQL by the database's, so workers on machines whose clocks disagree still agree —
 * unless SHOP_CLOCK_FILE is set (tests), which it then follows as SQLite does.
 *
 * Paths are kept relative to the project's checkout (checkout-paths.ts): each machine's worker
 * reads a run's workspace and workflow under its own checkout, wherever that sits.
 */
export async function openStore(
  project: Pick<Project, 'home' | 'dbFile' | 'root'>,
  env: NodeJS.ProcessEnv,
  opts: { poolSize?: number } = {},
): Promise<Store> {
  return withCheckoutPaths(await openStoreAt(project, env, opts), project.root);
}

async function openStoreAt(
  project: Pick<Project, 'home' | 'dbFile'>,
  env: NodeJS.ProcessEnv,
  opts: { poolSize?: number } = {},
): Promise<Store> {
  const where = storeLocation(project, env);
  try {
    mkdirSync(project.home, { recursive: true, mode: 0o700 });
  } catch (e) {
    throw storeError(e, where.kind === 'sqlite' ? where.file : project.home, true) ?? e;
  }
  if (where.kind === 'sqlite') {
    const { openSqliteStore } = await import('./sqlite/sqlite-store.js');
    return openSqliteStore(where.file, nodeClock(env).now);
  }
  return openPostgres(where, env, opts);
}

/** The PostgreSQL store, its errors (connecting, and every call after) as one clear line each. */
export async function openPostgres(
  where: Extract<StoreLocation, { kind: 'postgres' }>,
  env: NodeJS.ProcessEnv,
  opts: { poolSize?: number } = {},
): Promise<Store> {
  const [{ openPgStore }, { pgStoreError }] = await Promise.all([
    import('./pg/pg-store.js'),
    import('./pg/pg-errors.js'),
  ]);
  const mapped = (e: unknown) => pgStoreError(e, where.url, where.source) ?? e;
  try {
    const store = await openPgStore(where.url, {
      now: env.SHOP_CLOCK_FILE ? nodeClock(env).now : undefined,
      poolSize: opts.poolSize,
    });
    return withErrors(store, mapped);
  } catch (e) {
    throw mapped(e);
  }
}

/**
 * The store, every method's failure passed through `map` (sync throws and rejected promises):
 * a connection lost in the middle of a command reads like one lost at its start.
 */
function withErrors(store: Store, map: (e: unknown) => unknown): Store {
  return new Proxy(store, {
    get(target, prop) {
      // Read on the store itself, not the proxy: getters and private fields see their own object.
      const value = Reflect.get(target, prop) as unknown;
      if (typeof value !== 'function') return value;
      return function (this: unknown, ...args: unknown[]) {
        let result: unknown;
        try {
          result = (value as (...a: unknown[]) => unknown).apply(target, args);
        } catch (e) {
          throw map(e);
        }
        return result instanceof Promise
          ? result.catch((e: unknown) => {
              throw map(e);
            })
          : result;
      };
    },
  });
}
