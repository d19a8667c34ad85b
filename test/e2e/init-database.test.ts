import { existsSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../../scripts/pg-cluster.mjs';
import { lines, makeProject } from './harness.js';
import { tempDir } from '../../packages/core/src/testing/temp-dir.js';

/** shop init --database URL: checked, connected and migrated before anything is kept; one line when not. */

let cluster: Cluster;
const dirs: string[] = [];
beforeAll(async () => {
  cluster = await startCluster();
}, 60_000);
afterAll(async () => {
  await cluster?.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** An empty folder to run shop init in. */
function emptyDir(): string {
  const dir = realpathSync(tempDir('shop-init-db-'));
  dirs.push(dir);
  return dir;
}

describe('shop init --database URL', () => {
  it('keeps a URL that connects in .shop/database.url (0600); every command then uses that database', async () => {
    const p = makeProject();
    const dir = emptyDir();
    const url = await cluster.createDatabase('initdb');
    const r = p.shop(['init', '--database', url], { cwd: dir });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(lines(r.stdout).slice(1)).toEqual([
      'database URL kept in .shop/database.url (readable by you alone)',
      `store ready at PostgreSQL 127.0.0.1:${cluster.port}/initdb (from ${dir}/.shop/database.url)`,
      'next: shop run feature "add a login page"',
    ]);
    const file = join(dir, '.shop', 'database.url');
    expect(readFileSync(file, 'utf8')).toBe(`${url}\n`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    writeFileSync(
      join(dir, 'workflows', 'gate.lua'),
      'function workflow(prompt)\n  return pause("Ship?").continue\nend\n',
    );
    expect(p.shop(['run', 'gate'], { cwd: dir }).code).toBe(3);
    // No SQLite store was made: the run lives in PostgreSQL.
    expect(existsSync(join(dir, '.shop', 'shop.db'))).toBe(false);
    expect(JSON.parse(p.shop(['list', '--json'], { cwd: dir }).stdout)).toMatchObject([
      { id: 1, spec: 'gate', status: 'waiting_human' },
    ]);
    const { openPgDb } = await import('../../packages/core/src/store/pg/pg-db.js');
    const db = await openPgDb(url);
    try {
      expect(await db.query('SELECT id, spec, status FROM runs')).toEqual([
        { id: 1, spec: 'gate', status: 'waiting_human' },
      ]);
    } finally {
      await db.close();
    }
    // shop init again keeps it and says where the store is.
    expect(lines(p.shop(['init'], { cwd: dir }).stdout)).toContain(
      `store ready at PostgreSQL 127.0.0.1:${cluster.port}/initdb (from ${dir}/.shop/database.url)`,
    );
  });

  it('on a project with SQLite runs: says they stay in shop.db, unused, and how to go back', async () => {
    const p = makeProject();
    p.write('workflows/gate.lua', 'function workflow(prompt)\n  return pause("Ship?").continue\nend\n');
    expect(p.shop(['run', 'gate']).code).toBe(3);
    const url = await cluster.createDatabase('moved');
    const r = p.shop(['init', '--database', url]);
    expect(r.code).toBe(0);
    expect(lines(r.stdout)).toContain(
      'note: the runs in .shop/shop.db stay there, unused from now on (remove .shop/database.url to go back to them)',
    );
    expect(JSON.parse(p.shop(['list', '--json']).stdout)).toEqual([]);
    rmSync(join(p.dir, '.shop', 'database.url'));
    expect(JSON.parse(p.shop(['list', '--json']).stdout)).toMatchObject([{ id: 1, spec: 'gate' }]);
  });

  it('a URL that is not a PostgreSQL one: one line, exit 2, the password never echoed, nothing written', () => {
    const p = makeProject();
    const dir = emptyDir();
    for (const bad of ['mysql://ann:s3cret@db/shop', 'not a url', 'postgres://ann:s3cret@db']) {
      const r = p.shop(['init', '--database', bad], { cwd: dir });
      expect(r.code).toBe(2);
      expect(lines(r.stderr)).toHaveLength(1);
      expect(r.stderr).toMatch(/^shop: --database (is not a|names no)/);
      expect(r.stderr).not.toContain('s3cret');
      expect(r.stdout).toBe('');
    }
    expect(existsSync(join(dir, '.shop'))).toBe(false);
    expect(existsSync(join(dir, 'workflows'))).toBe(false);
  });

  it('a server that is not there: one line naming host:port, exit 1, nothing written', () => {
    const p = makeProject();
    const dir = emptyDir();
    const r = p.shop(['init', '--database', 'postgres://shop@127.0.0.1:1/shop'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'shop: cannot connect to PostgreSQL at 127.0.0.1:1 (connection refused); check that the server runs and accepts connections there, and check the --database URL\n',
    );
    expect(existsSync(join(dir, '.shop'))).toBe(false);
  });

  it("another project's store: exit 6, one line, and nothing kept — later commands still use this project's own store", async () => {
    const p = makeProject();
    const url = await cluster.createDatabase('taken');
    expect(p.shop(['init', '--database', url], { cwd: emptyDir() }).code).toBe(0);
    const dir = emptyDir();
    const r = p.shop(['init', '--database', url], { cwd: dir });
    expect(r.code).toBe(6);
    expect(lines(r.stderr)).toHaveLength(1);
    expect(r.stderr).toMatch(/^shop: this store belongs to another project/);
    expect(r.stdout).toBe('');
    expect(existsSync(join(dir, '.shop', 'database.url'))).toBe(false);
    expect(existsSync(join(dir, 'workflows'))).toBe(false);
    // Nothing points this folder at the other project's store: init without --database makes its own.
    const again = p.shop(['init'], { cwd: dir });
    expect(again.code).toBe(0);
    expect(lines(again.stdout)).toContain(`store ready at ${dir}/.shop/shop.db`);
    expect(p.shop(['list'], { cwd: dir }).code).toBe(0);
  });

  it('SHOP_DATABASE_URL takes the place of the file; its problems name it', () => {
    const p = makeProject();
    const r = p.shop(['list'], { env: { SHOP_DATABASE_URL: `postgres://shop@127.0.0.1:${cluster.port}/missing` } });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `shop: database missing does not exist on PostgreSQL at 127.0.0.1:${cluster.port}; create it (createdb missing) or fix SHOP_DATABASE_URL\n`,
    );
    const bad = p.shop(['list'], { env: { SHOP_DATABASE_URL: 'http://ann:s3cret@db/shop' } });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe(
      'shop: SHOP_DATABASE_URL is not a PostgreSQL URL (it starts http:); give a URL like postgres://USER:PASSWORD@HOST:5432/DATABASE\n',
    );
  });
});
