// A throwaway PostgreSQL cluster from Debian's packages, for tests and `npm run bench`:
// initdb into a temp folder, a server on 127.0.0.1 (a free port) with its socket in that
// folder, stopped and removed by stop(). initdb refuses to run as root, so as root the
// cluster belongs to the `postgres` user (the package creates it). Durability is off
// (fsync, synchronous_commit): nothing here outlives the process that started it.
//
//   import { startCluster } from './pg-cluster.mjs'
//   const pg = await startCluster(); const url = await pg.createDatabase('t1'); … await pg.stop();
//
// By hand: `node scripts/pg-cluster.mjs` starts one, prints its URL, stops it on Ctrl-C.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/** The folder holding initdb and pg_ctl: PG_BINDIR, pg_config's answer, or Debian's newest. */
export function pgBinDir() {
  if (process.env.PG_BINDIR) return process.env.PG_BINDIR;
  const debian = '/usr/lib/postgresql';
  if (existsSync(debian)) {
    const versions = readdirSync(debian)
      .filter((v) => existsSync(join(debian, v, 'bin', 'initdb')))
      .sort((a, b) => Number(b) - Number(a));
    if (versions.length) return join(debian, versions[0], 'bin');
  }
  const r = spawnSync('pg_config', ['--bindir'], { encoding: 'utf8' });
  if (r.status === 0) return r.stdout.trim();
  throw new Error(
    'PostgreSQL is not installed: apt-get install postgresql (or set PG_BINDIR to the folder holding initdb)',
  );
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;

/** Runs a PostgreSQL program, as the `postgres` user when this process is root. */
function pgRun(bin, args) {
  const [cmd, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args];
  const r = spawnSync(cmd, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (r.status !== 0)
    throw new Error(
      `${bin} ${args.join(' ')} failed (${r.status}): ${(r.stderr || r.stdout || '').trim().slice(-2000)}`,
    );
  return r.stdout;
}

/**
 * Starts a cluster; resolves to { url, port, dir, createDatabase(name), stop() }. `url` is the
 * cluster's `postgres` database as superuser `shop` (trust on loopback only).
 */
export async function startCluster(opts = {}) {
  const bin = pgBinDir();
  const dir = mkdtempSync(join(opts.parent ?? tmpdir(), 'shop-pg-'));
  chmodSync(dir, 0o755);
  if (asRoot) execFileSync('chown', ['postgres', dir]);
  const data = join(dir, 'data');
  pgRun(join(bin, 'initdb'), [
    '-D',
    data,
    '-U',
    'shop',
    '--auth=trust',
    '-E',
    'UTF8',
    '--locale=C',
    '--no-sync',
    '--no-instructions',
  ]);
  const port = opts.port ?? (await freePort());
  const settings = [
    `-p ${port}`,
    '-c listen_addresses=127.0.0.1',
    `-c unix_socket_directories=${dir}`,
    '-c fsync=off',
    '-c synchronous_commit=off',
    '-c full_page_writes=off',
    `-c max_connections=${opts.maxConnections ?? 300}`,
  ].join(' ');
  pgRun(join(bin, 'pg_ctl'), ['-D', data, '-l', join(dir, 'server.log'), '-o', settings, '-w', '-t', '60', 'start']);
  const url = `postgres://shop@127.0.0.1:${port}/postgres`;
  // One connection makes every database (a psql process each cost ~50 ms more); stop() ends it.
  let admin;
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    try {
      await (await admin)?.end();
    } catch {
      // The server is stopped next regardless.
    }
    try {
      pgRun(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  /**
   * A fresh database of this cluster, its URL: empty, or a copy of `template` (a database of
   * this cluster nobody is connected to; copying one already migrated saves migrating again).
   */
  const createDatabase = async (name, template) => {
    for (const n of [name, template ?? name])
      if (!/^[a-z_][a-z0-9_]{0,62}$/.test(n)) throw new Error(`bad database name ${n}`);
    admin ??= (async () => {
      const client = new pg.Client({ connectionString: url });
      client.on('error', () => undefined); // the server stopped under it: the next query says so
      await client.connect();
      return client;
    })();
    await (await admin).query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`);
    return `postgres://shop@127.0.0.1:${port}/${name}`;
  };
  return { url, port, dir, createDatabase, stop };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const cluster = await startCluster();
  const url = await cluster.createDatabase('shop');
  console.log(`PostgreSQL is up: SHOP_DATABASE_URL=${url}\n(Ctrl-C stops it and removes ${cluster.dir})`);
  const end = () => cluster.stop().then(() => process.exit(0));
  process.on('SIGINT', end);
  process.on('SIGTERM', end);
  setInterval(() => {}, 1 << 30);
}
