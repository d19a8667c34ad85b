import Database from 'better-sqlite3';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { storeContract } from '../contract/index.js';
import { openSqliteStore } from './sqlite-store.js';
import { tempDir } from '../../testing/temp-dir.js';

/** The store contract on the real SQLite adapter: a fresh file in a temp dir per test (WAL). */
const dirs: string[] = [];
const files = new WeakMap<object, string>();

storeContract({
  name: 'SQLite',
  async open(clock) {
    const dir = tempDir('shop-contract-');
    dirs.push(dir);
    const store = openSqliteStore(join(dir, 'shop.db'), clock);
    files.set(store, join(dir, 'shop.db'));
    return store;
  },
  async close() {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  },
  async connect(store, clock) {
    const other = openSqliteStore(files.get(store)!, clock);
    files.set(other, files.get(store)!);
    return other;
  },
  async schemaVersion(store) {
    const db = new Database(files.get(store)!, { readonly: true });
    try {
      return db.pragma('user_version', { simple: true }) as number;
    } finally {
      db.close();
    }
  },
  async failEvents(store, type) {
    const db = new Database(files.get(store)!);
    const name = `contract_fail_${type.replace(/\W/g, '_')}`;
    db.exec(
      `CREATE TRIGGER ${name} BEFORE INSERT ON events WHEN NEW.type = '${type.replace(/'/g, "''")}' BEGIN SELECT RAISE(ABORT, 'injected failure'); END`,
    );
    return async () => {
      db.exec(`DROP TRIGGER ${name}`);
      db.close();
    };
  },
});
