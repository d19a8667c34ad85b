import { afterEach, describe, expect, it, vi } from 'vitest';
import fengari from './patched-fengari.js';
import { sandboxBytecode } from './sandbox-chunk.js';
import { oneThread } from './testing/one-thread.js';

const source = `function workflow(p)
  local t = {3, 1, 2}
  table.sort(t, function(a, b) return a > b end)
  local ok, e = pcall(error, "boom")
  return { t, ok, e, require ~= nil }
end`;

describe("Shop's own Lua in each VM (the prelude, require's body)", () => {
  it('is parsed once a process, then loaded from its bytecode, and works the same', () => {
    const loads = vi.spyOn(fengari.lauxlib, 'luaL_loadbuffer');
    try {
      const first = oneThread(source).start('');
      const second = oneThread(source).start('');
      expect(first).toEqual({ kind: 'done', value: [[3, 2, 1], false, 'boom', true] });
      expect(second).toEqual(first);
      const sandbox = loads.mock.calls.filter((c) => fengari.to_jsstring(c[3]) === '=(sandbox)');
      expect(sandbox.length).toBeGreaterThanOrEqual(4);
      // The second VM's two chunks: Lua bytecode (its signature starts "\x1bLua"), not text.
      expect(sandbox.slice(-2).map((c) => (c[1] as Uint8Array)[0])).toEqual([0x1b, 0x1b]);
    } finally {
      loads.mockRestore();
    }
  });

  afterEach(() => {
    vi.unstubAllGlobals();
    vi.resetModules();
  });

  it("the bundled CLI's first VM loads the bytecode its build made (SHOP_SANDBOX_BYTECODE), and works the same", async () => {
    const expected = oneThread(source).start('');
    // What scripts/bundle.mjs defines: the bytecode this process made, as JSON.
    vi.stubGlobal('SHOP_SANDBOX_BYTECODE', JSON.stringify(sandboxBytecode()));
    vi.resetModules();
    const fresh = await import('./testing/one-thread.js');
    const { default: freshFengari } = await import('./patched-fengari.js');
    const loads = vi.spyOn(freshFengari.lauxlib, 'luaL_loadbuffer');
    try {
      expect(fresh.oneThread(source).start('')).toEqual(expected);
      const sandbox = loads.mock.calls.filter((c) => freshFengari.to_jsstring(c[3]) === '=(sandbox)');
      // The first VM of this module graph: both chunks from bytecode, none parsed.
      expect(sandbox.map((c) => (c[1] as Uint8Array)[0])).toEqual([0x1b, 0x1b]);
    } finally {
      loads.mockRestore();
    }
  });
});
