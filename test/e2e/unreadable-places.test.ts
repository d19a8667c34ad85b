import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeProject, shopBin, type Project, type Result } from './harness.js';

/**
 * Places a command may not write or read, said as such: `shop report` whose signal folder is
 * read-only printed "internal error: EROFS …"; a store this user may not read was "cannot open
 * (check that its folder exists and is writable)" or, seen through a link, "missing … the store
 * was lost". Root reads everything: as root the commands run as nobody (setpriv), and a read-only
 * folder is a read-only mount (unshare); otherwise file modes do it.
 */
const root = process.getuid?.() === 0;

/** `shop …` as a user who does not own the project (root: nobody; else this user, whose files' modes deny it). */
function shopAsOther(p: Project, args: string[], env: NodeJS.ProcessEnv = {}): Result {
  const [file, pre] = root
    ? ['setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath]]
    : [process.execPath, []];
  const r = spawnSync(file, [...pre, shopBin, ...args], {
    cwd: p.dir,
    env: { ...p.env, ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A project whose store exists (one run), its folder open to others (mkdtemp makes it private). */
function projectWithStore(): Project {
  const p = makeProject();
  p.write('workflows/gate.lua', 'function workflow(prompt)\n  return pause("Ship?").continue\nend\n');
  expect(p.shop(['run', 'gate']).code).toBe(3);
  chmodSync(p.dir, 0o755);
  return p;
}

describe('a store this user may not read', () => {
  it('shop list and shop status say the store could not be read, with the path and why', () => {
    const p = projectWithStore();
    const store = join(p.dir, '.shop', 'shop.db');
    if (root) chmodSync(join(p.dir, '.shop'), 0o755);
    else chmodSync(store, 0o000);
    const line = `shop: cannot read the store ${store}: permission denied (EACCES); check the permissions of the file and of the folders above it (ls -ld ${join(p.dir, '.shop')} ${store}), or set SHOP_HOME to a folder of yours\n`;
    for (const args of [['list'], ['status', '1'], ['inbox']]) {
      const r = shopAsOther(p, args);
      expect({ args, code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({
        args,
        code: 1,
        stdout: '',
        stderr: line,
      });
    }
    if (!root) chmodSync(store, 0o600);
  });

  it('a store behind a link this user may not follow is not "missing … the store was lost"', () => {
    const p = projectWithStore();
    const home = join(p.dir, '.shop');
    const hidden = join(p.dir, 'hidden');
    mkdirSync(hidden, { mode: 0o700 });
    renameSync(join(home, 'shop.db'), join(hidden, 'shop.db'));
    symlinkSync(join(hidden, 'shop.db'), join(home, 'shop.db'));
    mkdirSync(join(home, 'runs', '1'), { recursive: true });
    chmodSync(home, 0o755);
    chmodSync(join(home, 'runs'), 0o755);
    if (!root) chmodSync(hidden, 0o000);
    const r = shopAsOther(p, ['list']);
    expect([r.code, r.stderr]).toEqual([
      1,
      expect.stringMatching(
        new RegExp(`^shop: cannot read the store ${join(home, 'shop.db')}: permission denied \\(EACCES\\); `),
      ),
    ]);
    if (!root) chmodSync(hidden, 0o700);
  });
});

describe('shop report where the signal folder is read-only', () => {
  /** `shop report DONE` with the signal file's folder read-only: a read-only mount (root), else a folder with no write permission. */
  function reportReadOnly(p: Project, file: string, env: NodeJS.ProcessEnv): Result {
    const dir = join(file, '..');
    const report = [process.execPath, shopBin, 'report', 'DONE', '--summary', 'x'];
    if (!root) {
      chmodSync(dir, 0o555);
      try {
        const r = spawnSync(report[0], report.slice(1), { cwd: p.dir, env: { ...p.env, ...env }, encoding: 'utf8' });
        return { code: r.status, stdout: r.stdout, stderr: r.stderr };
      } finally {
        chmodSync(dir, 0o755);
      }
    }
    const script = 'mount --bind "$1" "$1" && mount -o remount,ro,bind "$1" "$1" && shift && exec "$@"';
    const r = spawnSync('unshare', ['-m', 'sh', '-c', script, 'sh', dir, ...report], {
      cwd: p.dir,
      env: { ...p.env, ...env },
      encoding: 'utf8',
    });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  }
  const why = root ? 'the file system is read-only \\(EROFS\\)' : 'permission denied \\(EACCES\\)';

  it('with the store out of reach too: one line saying the signal file could not be written (path, why) and nothing was reported, exit 1', () => {
    const p = makeProject();
    const dir = join(p.dir, 'sig');
    mkdirSync(dir);
    const file = join(dir, '7.1.coder.json');
    const r = reportReadOnly(p, file, {
      SHOP_SIGNAL_FILE: file,
      SHOP_RUN_ID: '7',
      SHOP_CALL: '1',
      SHOP_DATABASE_URL: 'postgres://shop@127.0.0.1:1/shop',
    });
    expect(r.stdout).toBe('');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      new RegExp(
        `^shop: could not write the signal file ${file}: ${why}, and the run's store is out of reach here \\(cannot connect to PostgreSQL at 127\\.0\\.0\\.1:1 [^\\n]*\\): nothing was reported; the agent's step must be able to write ${dir}\\n$`,
      ),
    );
  });

  it('outside a run (no store to take it): the same one line, exit 1', () => {
    const p = makeProject();
    const dir = join(p.dir, 'sig');
    mkdirSync(dir);
    writeFileSync(join(dir, 'keep'), '');
    const file = join(dir, '7.1.coder.json');
    const r = reportReadOnly(p, file, { SHOP_SIGNAL_FILE: file });
    expect([r.code, r.stdout]).toEqual([1, '']);
    expect(r.stderr).toMatch(
      new RegExp(
        `^shop: could not write the signal file ${file}: ${why}; nothing was reported: the agent's step must be able to write ${dir}\\n$`,
      ),
    );
  });
});
