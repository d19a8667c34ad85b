import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../../../../scripts/pg-cluster.mjs';
import { UsageError } from '../errors.js';
import { checkDatabaseUrl, storeLocation } from './database-url.js';
import { openStore } from './open-store.js';
import { StoreError } from '../errors.js';
import { pgStoreError } from './pg/pg-errors.js';
import { tempDir } from '../testing/temp-dir.js';

let cluster: Cluster;
let home: string;
const project = () => ({ root: home, home, dbFile: join(home, 'shop.db') });

beforeAll(async () => {
  home = tempDir('shop-open-store-');
  cluster = await startCluster();
});
afterAll(async () => {
  await cluster?.stop();
  rmSync(home, { recursive: true, force: true });
});

describe('which store a project uses', () => {
  it('SQLite by default; .shop/database.url; SHOP_DATABASE_URL over the file', () => {
    expect(storeLocation(project(), {})).toEqual({ kind: 'sqlite', file: join(home, 'shop.db') });
    writeFileSync(join(home, 'database.url'), 'postgres://a@db.one:5432/shop\n');
    expect(storeLocation(project(), {})).toEqual({
      kind: 'postgres',
      url: 'postgres://a@db.one:5432/shop',
      source: join(home, 'database.url'),
    });
    expect(storeLocation(project(), { SHOP_DATABASE_URL: 'postgresql://b@db.two/shop' })).toEqual({
      kind: 'postgres',
      url: 'postgresql://b@db.two/shop',
      source: 'SHOP_DATABASE_URL',
    });
    rmSync(join(home, 'database.url'));
  });

  it('refuses what is not a PostgreSQL URL, naming where it came from, never echoing it', () => {
    const bad = (text: string) => {
      try {
        checkDatabaseUrl(text, 'SHOP_DATABASE_URL');
      } catch (e) {
        expect(e).toBeInstanceOf(UsageError);
        expect((e as Error).message).not.toContain('s3cret');
        return (e as Error).message;
      }
      throw new Error(`accepted ${text}`);
    };
    expect(bad('mysql://u:s3cret@h/db')).toBe(
      'SHOP_DATABASE_URL is not a PostgreSQL URL (it starts mysql:); give a URL like postgres://USER:PASSWORD@HOST:5432/DATABASE',
    );
    expect(bad('u:s3cret@h/db')).toMatch(/^SHOP_DATABASE_URL is not (a URL|a PostgreSQL URL)/);
    expect(bad('postgres://u:s3cret@h')).toMatch(/^SHOP_DATABASE_URL names no database/);
    expect(bad('')).toMatch(/^SHOP_DATABASE_URL is empty/);
    expect(bad(`postgres://u:s3cret@h/${'d'.repeat(3000)}`)).toMatch(/longer than 2048/);
  });
});

describe('opening a PostgreSQL store', () => {
  const open = (url: string) => openStore(project(), { SHOP_DATABASE_URL: url });
  const failure = async (url: string) => {
    const e = await open(url).then(
      () => null,
      (err: unknown) => err,
    );
    expect(e).toBeInstanceOf(StoreError);
    return (e as Error).message;
  };
  const at = (db: string, user = 'shop') => `postgres://${user}@127.0.0.1:${cluster.port}/${db}`;

  it('opens and migrates a database, and reads from it', async () => {
    const url = await cluster.createDatabase('opened');
    const store = await open(url);
    try {
      expect(await store.listRuns()).toEqual([]);
      expect(await store.countRuns()).toBe(0);
    } finally {
      await store.close();
    }
  });

  it('one line for a server not there, a database missing, a login refused', async () => {
    expect(await failure('postgres://shop@127.0.0.1:1/shop')).toBe(
      'cannot connect to PostgreSQL at 127.0.0.1:1 (connection refused); check that the server runs and accepts connections there, and check SHOP_DATABASE_URL',
    );
    expect(await failure(at('nowhere'))).toBe(
      `database nowhere does not exist on PostgreSQL at 127.0.0.1:${cluster.port}; create it (createdb nowhere) or fix SHOP_DATABASE_URL`,
    );
    const admin = await openStore(project(), { SHOP_DATABASE_URL: await cluster.createDatabase('roles') });
    await admin.close();
    const { openPgDb } = await import('./pg/pg-db.js');
    const db = await openPgDb(at('roles'));
    await db.query('CREATE ROLE visitor NOLOGIN');
    await db.close();
    expect(await failure(at('roles', 'visitor'))).toBe(
      `PostgreSQL at 127.0.0.1:${cluster.port} refused user visitor: authentication failed; check the user and password in SHOP_DATABASE_URL`,
    );
  });

  it("a server that never answers (timeout), a dropped connection: one line; anything else is not the store's", () => {
    const url = 'postgres://ann:s3cret@db.example:6543/shop';
    expect(pgStoreError(new Error('timeout expired'), url, 'SHOP_DATABASE_URL')?.message).toBe(
      'cannot connect to PostgreSQL at db.example:6543 (no answer in time); check that the server runs and accepts connections there, and check SHOP_DATABASE_URL',
    );
    expect(pgStoreError(new Error('Connection terminated unexpectedly'), url, 'SHOP_DATABASE_URL')?.message).toBe(
      'lost the connection to PostgreSQL at db.example:6543 (Connection terminated unexpectedly); check that the server runs, then try again',
    );
    expect(pgStoreError(Object.assign(new Error('x'), { code: '53300' }), url, 'SHOP_DATABASE_URL')?.message).toMatch(
      /^PostgreSQL at db\.example:6543 has no free connections/,
    );
    expect(pgStoreError(new Error('boom'), url, 'SHOP_DATABASE_URL')).toBeNull();
    expect(pgStoreError(Object.assign(new Error('dup'), { code: '23505' }), url, 'SHOP_DATABASE_URL')).toBeNull();
  });

  it('a failure after opening reads the same (the server gone mid-command)', async () => {
    const other = await startCluster();
    const store = await open(await other.createDatabase('gone'));
    try {
      await other.stop();
      const e = await store.listRuns().then(
        () => null,
        (err: unknown) => err,
      );
      expect(e).toBeInstanceOf(StoreError);
      expect((e as Error).message).toMatch(
        new RegExp(`^(cannot connect to|lost the connection to|PostgreSQL at) .*127\\.0\\.0\\.1:${other.port}`),
      );
    } finally {
      await store.close().catch(() => {});
    }
  });
});
