import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot, standin } from './harness.js';
import { tempDir } from '../../packages/core/src/testing/temp-dir.js';

/**
 * The README's other install, following a clone (after `npm install` there): a global
 * install of the CLI package (into a temp prefix here), then `shop` from PATH in a folder
 * that has nothing to do with this repository.
 */
describe('npm install -g ./packages/cli', () => {
  const prefix = tempDir('shop-prefix-');
  const elsewhere = realpathSync(tempDir('shop-elsewhere-'));
  afterAll(() => {
    rmSync(prefix, { recursive: true, force: true });
    rmSync(elsewhere, { recursive: true, force: true });
  });
  // A user's shell: no node_modules/.bin of this repository on PATH, the install's bin first.
  const PATH = [
    join(prefix, 'bin'),
    ...(process.env.PATH ?? '').split(':').filter((d) => !d.includes('node_modules/.bin')),
  ].join(':');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PATH,
    SHOP_CLAUDE_BIN: standin,
    SHOP_USER: 'tester',
    SHOP_DEBUG: '',
    SHOP_STANDIN_LOG: join(elsewhere, 'standin.jsonl'),
    CLAUDE_CONFIG_DIR: join(elsewhere, '.claude-config'),
  };
  delete env.SHOP_HOME;
  delete env.SHOP_STANDIN_SCENARIO;
  const shop = (...args: string[]) => spawnSync('shop', args, { cwd: elsewhere, env, encoding: 'utf8' });

  it('puts shop on PATH: --version, then init and a run in another folder', () => {
    // --offline: the CLI package is linked, its dependencies are the clone's; nothing is fetched.
    execFileSync(
      'npm',
      ['install', '-g', '--offline', '--no-audit', '--no-fund', '--prefix', prefix, join(repoRoot, 'packages', 'cli')],
      { env, stdio: 'pipe' },
    );
    const version = JSON.parse(readFileSync(join(repoRoot, 'packages', 'cli', 'package.json'), 'utf8')).version;
    expect(shop('--version')).toMatchObject({ status: 0, stdout: `shop ${version}\n`, stderr: '' });

    const init = shop('init');
    expect(init.status).toBe(0);
    expect(existsSync(join(elsewhere, 'workflows', 'feature.lua'))).toBe(true);
    expect(existsSync(join(elsewhere, 'agents', 'coder.md'))).toBe(true);
    expect(existsSync(join(elsewhere, '.shop', 'shop.db'))).toBe(true);

    // The stand-in agents report through `shop report`, found on the PATH the engine gives them.
    writeFileSync(
      join(elsewhere, 'scenario.json'),
      JSON.stringify({
        agents: {
          coder: [{ via: 'report', summary: 'fixed' }],
          reviewer: [{ via: 'report', status: 'APPROVED', summary: 'ok' }],
        },
      }),
    );
    env.SHOP_STANDIN_SCENARIO = join(elsewhere, 'scenario.json');
    const run = shop('run', 'bugfix', 'fix the login');
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^run 1 completed: /m);
    const list = shop('list', '--json');
    expect(JSON.parse(list.stdout)).toEqual([expect.objectContaining({ id: 1, spec: 'bugfix', status: 'completed' })]);
  });
});
