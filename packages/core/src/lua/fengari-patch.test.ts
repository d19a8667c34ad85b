import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import fengari, { probeFengari } from './patched-fengari.js';
import { FENGARI_PATCHES, PATCHED_FILES, patchFengariSource } from './fengari-patch.js';

const require = createRequire(import.meta.url);
const root = dirname(require.resolve('fengari/package.json'));

describe("Shop's patch of fengari", () => {
  it('applies each change exactly once to the fengari installed', () => {
    for (const file of PATCHED_FILES) {
      const source = readFileSync(join(root, file), 'utf8');
      const patched = patchFengariSource(file, source);
      for (const p of FENGARI_PATCHES.filter((q) => q.file === file)) {
        expect(patched.split(p.replace).length, `${file}: ${p.replace}`).toBe(2);
      }
    }
  });

  it('refuses a fengari it was not written for, naming the file, instead of running unbounded', () => {
    const lvm = readFileSync(join(root, 'src/lvm.js'), 'utf8');
    const changed = lvm.replace('let buff = new Uint8Array(tl);', 'let buff = new Uint8Array(tl | 0);');
    expect(() => patchFengariSource('src/lvm.js', changed)).toThrow(
      /^fengari's src\/lvm\.js is not the one Shop's bounds were written for \(0 places match a change, not 1\)/,
    );
  });

  it('is in effect in the fengari core uses', () => {
    expect(probeFengari(fengari)).toBeNull();
  });

  it('a fengari loaded without it is refused: no workflow runs unbounded', () => {
    // A second, plain copy of fengari: its files loaded afresh, the patched ones put back after.
    const ours = Object.keys(require.cache).filter((k) => k.startsWith(root));
    const saved = ours.map((k) => [k, require.cache[k]] as const);
    for (const k of ours) delete require.cache[k];
    try {
      const plain = require('fengari');
      expect(plain).not.toBe(fengari);
      expect(probeFengari(plain)).toMatch(
        /^Shop's Lua bounds are not in this fengari \(no concat, buffer, copy, deep, hash check\): fengari was loaded unpatched/,
      );
    } finally {
      for (const k of Object.keys(require.cache)) if (k.startsWith(root)) delete require.cache[k];
      for (const [k, m] of saved) require.cache[k] = m;
    }
  });

  it('keys tables by every byte: two strings whose hex digits run together alike are two keys', () => {
    const { lua, lauxlib, lualib, to_luastring } = fengari;
    const L = lauxlib.luaL_newstate();
    lualib.luaL_openlibs(L);
    lauxlib.luaL_dostring(L, to_luastring('local t = { ["\\1#"] = "one" } return tostring(t["\\18\\3"])'));
    expect(lua.lua_tojsstring(L, -1)).toBe('nil');
  });
});
