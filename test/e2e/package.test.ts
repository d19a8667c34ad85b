import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { copyFileSync, existsSync, mkdirSync, readFileSync, realpathSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from './harness.js';
import { tempDir } from '../../packages/core/src/testing/temp-dir.js';

/**
 * The package as a user gets it: `npm run pack`'s tarball installed with `npm install -g` into a
 * fresh prefix (no clone, no workspace links), then `shop` from that prefix's bin alone, in a
 * folder and a HOME that have nothing to do with this repository.
 *
 * better-sqlite3 is installed with its install script off, and the binary this clone built put in
 * its place: its script fetches a prebuilt binary from GitHub, which CI cannot reach, then falls
 * back to compiling SQLite (over a minute on two cores, and only where Node's headers are at hand).
 * The package pins the version installed here, so this clone's binary is the one it would build.
 */
describe('the packed tarball, installed with npm install -g', () => {
  const work = realpathSync(tempDir('shop-package-'));
  const prefix = join(work, 'prefix');
  const home = join(work, 'home');
  const project = join(work, 'project');
  let tarball = '';
  const env: NodeJS.ProcessEnv = {};

  beforeAll(() => {
    const packed = execFileSync(process.execPath, [join(repoRoot, 'scripts', 'pack.mjs'), work], { encoding: 'utf8' });
    tarball = join(work, /^(shop-\S+\.tgz):/.exec(packed)![1]);
    execFileSync(
      'npm',
      ['install', '-g', '--prefer-offline', '--ignore-scripts', '--no-audit', '--no-fund', '--prefix', prefix, tarball],
      { cwd: work, stdio: 'pipe' },
    );
    const installed = join(prefix, 'lib', 'node_modules', 'shop', 'node_modules', 'better-sqlite3');
    const version = (dir: string) => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version;
    expect(version(installed)).toBe(version(join(repoRoot, 'node_modules', 'better-sqlite3')));
    mkdirSync(join(installed, 'build', 'Release'), { recursive: true });
    const binary = join('build', 'Release', 'better_sqlite3.node');
    copyFileSync(join(repoRoot, 'node_modules', 'better-sqlite3', binary), join(installed, binary));
    mkdirSync(home);
    mkdirSync(project);
    // A user's shell: the install's bin, node, the system's tools; nothing of this repository.
    const system = (process.env.PATH ?? '').split(':').filter((d) => /^\/(usr\/)?s?bin$/.test(d));
    Object.assign(env, {
      PATH: [join(prefix, 'bin'), dirname(process.execPath), ...system].join(':'),
      HOME: home,
      TMPDIR: work,
      SHOP_USER: 'tester',
      SHOP_STANDIN_PACE_MS: '0',
      LANG: 'C.UTF-8',
    });
  }, 60_000);
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  const shop = (...args: string[]) => spawnSync('shop', args, { cwd: project, env, encoding: 'utf8' });

  it('holds the CLI and what it reads at run time, and no sources or tests', () => {
    const files = execFileSync('tar', ['tzf', tarball], { encoding: 'utf8' }).trim().split('\n');
    expect(files.filter((f) => !f.startsWith('package/dist/bundle/chunks/')).sort()).toEqual(
      [
        'README.md',
        'agents/architect.md',
        'agents/coder.md',
        'agents/deployer.md',
        'agents/reviewer.md',
        'bin/package.json',
        'bin/shop',
        'dist/bundle/build-id',
        'dist/bundle/shop.cjs',
        'package.json',
        'schema.sql',
        'scripts/claude-standin.mjs',
        'scripts/standin-presence.mjs',
        'scripts/standin-scenario.mjs',
        'web/static/app.css',
        'web/static/app.js',
        'workflows/bugfix.lua',
        'workflows/bugfix.test.json',
        'workflows/feature.lua',
        'workflows/feature.test.json',
        'workflows/review-parallel.lua',
        'workflows/review-parallel.test.json',
      ].map((f) => `package/${f}`),
    );
    expect(
      files.filter((f) => !/^package\/dist\/bundle\/chunks\/[\w-]+\.cjs$/.test(f) && f.includes('chunks')),
    ).toEqual([]);
    const manifest = JSON.parse(readFileSync(join(prefix, 'lib', 'node_modules', 'shop', 'package.json'), 'utf8'));
    expect(manifest).toMatchObject({ name: 'shop', bin: { shop: 'bin/shop' } });
    // pg (node-postgres) is in the bundle; only the native module is installed beside it.
    expect(Object.keys(manifest.dependencies).sort()).toEqual(['better-sqlite3']);
  });

  it('puts shop on PATH from the install alone: --version, init, test feature', () => {
    expect(realpathSync(execFileSync('sh', ['-c', 'command -v shop'], { env, encoding: 'utf8' }).trim())).toBe(
      join(prefix, 'lib', 'node_modules', 'shop', 'bin', 'shop'),
    );
    const version = JSON.parse(readFileSync(join(repoRoot, 'packages', 'cli', 'package.json'), 'utf8')).version;
    expect(shop('--version')).toMatchObject({ status: 0, stdout: `shop ${version}\n`, stderr: '' });
    // The README's install lines name the tarball this version packs to.
    const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
    expect(readme).toContain(`npm install -g ./${basename(tarball)} `);
    expect(readme).toContain(`writes ${basename(tarball)} here`);
    const init = shop('init');
    expect(init.stderr).toBe('');
    expect(init.status).toBe(0);
    for (const f of ['workflows/feature.lua', 'workflows/feature.test.json', 'agents/coder.md', '.shop/shop.db'])
      expect(existsSync(join(project, f)), f).toBe(true);
    const test = shop('test', 'feature');
    expect(test.stderr).toBe('');
    expect(test.stdout.trim().split('\n').at(-1)).toBe('✓ pass');
    expect(test.status).toBe(0);
  });

  it('reaches PostgreSQL with the node-postgres in its bundle (here: a server that is not there, said in one line)', () => {
    const list = spawnSync('shop', ['list'], {
      cwd: project,
      env: { ...env, SHOP_DATABASE_URL: 'postgres://127.0.0.1:1/nowhere' },
      encoding: 'utf8',
    });
    expect(list.stderr).toBe(
      'shop: cannot connect to PostgreSQL at 127.0.0.1:1 (connection refused); check that the server runs and accepts connections there, and check SHOP_DATABASE_URL\n',
    );
    expect(list.status).toBe(1);
  });

  it('shop demo runs the feature workflow end to end on the shipped stand-in, in a temp folder', () => {
    // A shell's own Shop settings would send the demo elsewhere (a database, a real claude): not passed on.
    const demo = spawnSync('shop', ['demo'], {
      cwd: project,
      env: {
        ...env,
        SHOP_DATABASE_URL: 'postgres://127.0.0.1:1/nowhere',
        SHOP_CLAUDE_BIN: join(work, 'no-such-claude'),
        SHOP_HOME: join(work, 'no-such-home'),
      },
      encoding: 'utf8',
    });
    expect(demo.stderr).toBe('');
    expect(demo.status).toBe(0);
    const dir = /^\$ cd (\S+)$/m.exec(demo.stdout)![1];
    expect(dirname(dir)).toBe(work);
    expect(demo.stdout).toContain('$ shop run feature "add a login page"      # exit 3: it waits for a person');
    expect(demo.stdout).toMatch(
      /^run 1 is waiting for a person \(checkpoint\): the workflow asks: Approve deployment\?$/m,
    );
    expect(demo.stdout).toMatch(/^\$ shop approve 1\.6 --message "ship it"$/m);
    expect(demo.stdout).toMatch(/^run 1 completed: \{"shipped":true,"rounds":2,/m);
    expect(demo.stdout).toMatch(/^Run 1: completed/m);
    expect(demo.stdout).toMatch(/ human_answered \[6 _checkpoint\] by tester \(cli\) {2}ask=1 verdict="approved"/);
    // Every agent step was the stand-in's (its made-up summaries), none a real claude.
    expect(demo.stdout).toMatch(/\[7\] deployer → DONE: deployer finished: Deploy: add a login page/);
    expect(existsSync(join(dir, '.claude-config'))).toBe(true);
  });

  it("shop serve finds the web's static files in the package", async () => {
    const server = spawn('shop', ['serve', '--port', '0'], { cwd: project, env, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        server.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          const m = /listening on (http:\/\/\S+)/.exec(out);
          if (m) resolve(m[1]);
        });
        server.on('exit', (code) => reject(new Error(`shop serve exited ${code}: ${out}`)));
      });
      const css = await fetch(`${url}/static/app.css`);
      expect(css.status).toBe(200);
      expect(await css.text()).toBe(readFileSync(join(repoRoot, 'packages', 'web', 'static', 'app.css'), 'utf8'));
    } finally {
      const ended = server.exitCode === null ? once(server, 'exit') : null;
      server.kill('SIGTERM');
      await ended;
    }
  });

  it('says in one line how to build better-sqlite3 when its install script did not run', () => {
    const binary = join(
      prefix,
      'lib',
      'node_modules',
      'shop',
      'node_modules',
      'better-sqlite3',
      'build',
      'Release',
      'better_sqlite3.node',
    );
    renameSync(binary, `${binary}.aside`);
    try {
      const list = shop('list');
      expect(list.stderr).toBe(
        `shop: better-sqlite3, SQLite's native module, is not built: run npm rebuild better-sqlite3 in ${join(prefix, 'lib', 'node_modules', 'shop')} (it fetches a prebuilt binary, or compiles one)\n`,
      );
      expect(list.status).toBe(1);
    } finally {
      renameSync(`${binary}.aside`, binary);
    }
  });

  it('an install missing its bundle says to reinstall the tarball, in one line', () => {
    const bundle = join(prefix, 'lib', 'node_modules', 'shop', 'dist', 'bundle', 'shop.cjs');
    renameSync(bundle, `${bundle}.aside`);
    try {
      const r = shop('--version');
      expect(r.stderr).toBe(
        `shop: Shop is not built or not installed completely (Cannot find module '${bundle}'); reinstall it: npm install -g ${basename(tarball)}\n`,
      );
      expect(r.status).toBe(1);
    } finally {
      renameSync(`${bundle}.aside`, bundle);
    }
  });
});
