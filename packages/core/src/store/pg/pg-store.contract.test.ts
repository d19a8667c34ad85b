import { usePgCluster } from '../../../../../test/pg-cluster-hooks.js';
import { storeContract } from '../contract/index.js';
import type { Store } from '../store.js';
import { openPgDb } from './pg-db.js';
import { openPgStore } from './pg-store.js';

/**
 * The store contract on the real PostgreSQL adapter: one throwaway cluster for this file, a
 * fresh database per test; a second connection is a second pool on the same database. Each
 * test's database is a copy of one migrated once (migrating took ~150 ms of every test).
 */
const cluster = usePgCluster();
const urls = new WeakMap<Store, string>();
let migrated: Promise<string> | undefined;
const template = () =>
  (migrated ??= (async () => {
    const url = await cluster.fresh('contract_template');
    await (await openPgStore(url, { now: () => 0, poolSize: 1 })).close();
    return new URL(url).pathname.slice(1);
  })());

storeContract({
  name: 'PostgreSQL',
  async open(clock) {
    const url = await cluster.fresh('contract', await template());
    const store = await openPgStore(url, { now: clock, poolSize: 4 });
    urls.set(store, url);
    return store;
  },
  async connect(store, clock) {
    const url = urls.get(store)!;
    const other = await openPgStore(url, { now: clock, poolSize: 4 });
    urls.set(other, url);
    return other;
  },
  async schemaVersion(store) {
    const db = await openPgDb(urls.get(store)!);
    try {
      const [row] = await db.query<{ version: number }>('SELECT version FROM schema_meta WHERE id = 1');
      return row!.version;
    } finally {
      await db.close();
    }
  },
  async failEvents(store, type) {
    const db = await openPgDb(urls.get(store)!);
    const name = `contract_fail_${type.replace(/\W/g, '_')}`;
    const literal = `'${type.replace(/'/g, "''")}'`;
    await db.query(`CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.type = ${literal} THEN RAISE EXCEPTION 'injected failure'; END IF; RETURN NEW; END $$`);
    await db.query(`CREATE TRIGGER ${name} BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION ${name}()`);
    return async () => {
      await db.query(`DROP TRIGGER ${name} ON events`);
      await db.query(`DROP FUNCTION ${name}()`);
      await db.close();
    };
  },
});
