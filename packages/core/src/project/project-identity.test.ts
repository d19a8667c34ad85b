import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConflictError } from '../errors.js';
import { checkProjectStore, PROJECT_SETTING, projectIdentity } from './project-identity.js';
import { tempDir } from '../testing/temp-dir.js';

const dirs: string[] = [];
const dir = () => {
  const d = tempDir('shop-identity-');
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'init.defaultBranch=main', ...args], {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  }).trim();

/** A settings table in memory, as the store keeps it. */
const settings = () => {
  const m = new Map<string, string>();
  return {
    map: m,
    getSetting: async (name: string) => m.get(name) ?? null,
    initSetting: async (name: string, value: string) => (m.has(name) ? m.get(name)! : (m.set(name, value), value)),
  };
};

describe("a project's identity", () => {
  it("is its repository's first commit, the same in every clone, and kept in .shop/project-id", () => {
    const a = dir();
    git(a, 'init', '-q');
    git(a, 'commit', '-q', '--allow-empty', '-m', 'first');
    const first = git(a, 'rev-parse', 'HEAD');
    git(a, 'commit', '-q', '--allow-empty', '-m', 'second');
    const b = join(dir(), 'clone');
    git(a, 'clone', '-q', a, b);
    expect(projectIdentity({ root: a })).toBe(`git:${first}`);
    expect(projectIdentity({ root: b })).toBe(`git:${first}`);
    expect(readFileSync(join(a, '.shop', 'project-id'), 'utf8')).toBe(`git:${first}\n`);
  });

  it('outside git a random id, kept: the next command finds the same', () => {
    const a = dir();
    const id = projectIdentity({ root: a });
    expect(id).toMatch(/^id:[0-9a-f-]{36}$/);
    expect(projectIdentity({ root: a })).toBe(id);
    expect(projectIdentity({ root: dir() })).not.toBe(id);
  });

  it("kept in SHOP_HOME when the checkout's .shop cannot take it: still the same id every time", () => {
    const a = dir();
    // A checkout where .shop is no folder (as good as read-only, even for root).
    writeFileSync(join(a, '.shop'), 'not a folder');
    const home = dir();
    const id = projectIdentity({ root: a, home });
    expect(readFileSync(join(home, 'project-id'), 'utf8')).toBe(`${id}\n`);
    expect(projectIdentity({ root: a, home })).toBe(id);
  });

  it('is recorded on a store at first use; a store recorded for another project is refused', async () => {
    const store = settings();
    const a = dir();
    const mine = await checkProjectStore(store, { root: a });
    expect(store.map.get(PROJECT_SETTING)).toBe(mine);
    expect(await checkProjectStore(store, { root: a })).toBe(mine);
    const other = dir();
    await expect(checkProjectStore(store, { root: other })).rejects.toThrow(ConflictError);
    await expect(checkProjectStore(store, { root: other })).rejects.toThrow(
      `this store belongs to another project (${mine}), not ${other}`,
    );
  });
});
