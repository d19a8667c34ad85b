import { existsSync, mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeProject, repoRoot } from './harness.js';

/**
 * bin/shop keeps V8's compiled code of the bundle between starts (Node 20 has no compile cache of
 * its own): per build, in $XDG_CACHE_HOME/shop/compiled. A command must work the same with the
 * cache missing, fresh, damaged or out of reach.
 */
const buildId = readFileSync(join(repoRoot, 'packages', 'cli', 'dist', 'bundle', 'build-id'), 'utf8').trim();
const node20 = !('enableCompileCache' in (await import('node:module')));

/** The kept files: name → [inode, bytes]. */
function kept(dir: string): Map<string, [number, Buffer]> {
  const out = new Map<string, [number, Buffer]>();
  for (const f of readdirSync(dir)) out.set(f, [statSync(join(dir, f)).ino, readFileSync(join(dir, f))]);
  return out;
}

describe.runIf(node20)("the bundle's compiled code, kept between starts", () => {
  it('is written by the first command, used as it is by the next, and made again when damaged', () => {
    const p = makeProject();
    const cache = mkdtempSync(join(tmpdir(), 'shop-cache-'));
    const env = { XDG_CACHE_HOME: cache };
    const first = p.shop(['list'], { env });
    expect(first).toMatchObject({ code: 0, stderr: '' });
    const [dir] = readdirSync(join(cache, 'shop', 'compiled'));
    expect(dir).toBe(`${buildId}-${process.versions.v8}`);
    const path = join(cache, 'shop', 'compiled', dir!);
    // The user's alone: V8 runs what these files hold.
    expect(statSync(join(cache, 'shop')).mode & 0o777).toBe(0o700);
    const made = kept(path);
    expect([...made.keys()]).toContain('shop.cjs.v8');
    expect([...made.keys()].some((f) => /^chunks_store-.*\.cjs\.v8$/.test(f))).toBe(true);
    for (const [f, [, bytes]] of made) expect(bytes.length, f).toBeGreaterThan(100);

    // Accepted by V8: nothing is written again.
    expect(p.shop(['list'], { env })).toEqual(first);
    expect(kept(path)).toEqual(made);

    // Damaged (or another V8's): refused, the command runs as without it, and it is made again.
    for (const f of made.keys()) writeFileSync(join(path, f), 'not V8 code');
    expect(p.shop(['list'], { env })).toEqual(first);
    for (const [f, [, bytes]] of kept(path)) {
      expect(bytes.toString(), f).not.toBe('not V8 code');
      expect(bytes.length, f).toBeGreaterThan(100);
    }
  });

  it('out of reach or with SHOP_DEBUG=1, commands run the same and nothing is kept', () => {
    const p = makeProject();
    const plain = p.shop(['list'], { env: { XDG_CACHE_HOME: mkdtempSync(join(tmpdir(), 'shop-cache-')) } });
    // A file where the cache folder would go: it cannot be made.
    const blocked = mkdtempSync(join(tmpdir(), 'shop-cache-'));
    writeFileSync(join(blocked, 'shop'), 'a file');
    expect(p.shop(['list'], { env: { XDG_CACHE_HOME: blocked } })).toEqual(plain);
    expect(readdirSync(blocked)).toEqual(['shop']);
    // A HOME that is not there: no folder is made up for it.
    const gone = join(mkdtempSync(join(tmpdir(), 'shop-home-')), 'gone');
    expect(p.shop(['list'], { env: { HOME: gone, XDG_CACHE_HOME: '' } })).toEqual(plain);
    expect(existsSync(gone)).toBe(false);
    const debug = mkdtempSync(join(tmpdir(), 'shop-cache-'));
    expect(p.shop(['list'], { env: { XDG_CACHE_HOME: debug, SHOP_DEBUG: '1' } })).toEqual(plain);
    expect(readdirSync(debug)).toEqual([]);
  });
});
