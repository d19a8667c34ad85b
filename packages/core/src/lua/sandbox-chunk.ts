import fengari from './patched-fengari.js';
import type { LuaState } from './convert.js';

const { lua, lauxlib, to_luastring } = fengari;

/**
 * The chunks' bytecode as the CLI's build made it, in JSON: base64 keyed by each chunk's text, so
 * a text that differs from the one the build saw is parsed as usual. scripts/bundle.mjs defines
 * it; it is not defined when core runs from its sources or dist.
 */
declare const SHOP_SANDBOX_BYTECODE: string | undefined;

/** Each sandbox chunk's bytecode: the build's, else made from its first load in this process. */
const compiled = new Map<string, Uint8Array>(
  typeof SHOP_SANDBOX_BYTECODE === 'undefined'
    ? []
    : Object.entries(JSON.parse(SHOP_SANDBOX_BYTECODE) as Record<string, string>).map(([source, base64]) => [
        source,
        Buffer.from(base64, 'base64'),
      ]),
);

/**
 * Loads one of Shop's own chunks of Lua (the prelude, require's body) onto L's stack, as
 * luaL_loadbuffer would. Every VM loads them: in the bundled CLI from the bytecode its build
 * made; else parsed the first time in a process, then from the bytecode that parse made
 * (lua_dump, debug info kept, so errors read the same). A worker builds a VM for each run it
 * drives or wakes: measured over 300 VMs in one process, building one went from ~7 to ~2.7 ms
 * while the process warms up, and from ~1 to ~0.5 ms after; a command's first VM, ~9 ms less
 * with the build's. Never a workflow's or a module's file: those are parsed from their text.
 */
export function loadSandboxChunk(L: LuaState, source: string, name: string): number {
  const bytes = compiled.get(source);
  if (bytes) return lauxlib.luaL_loadbuffer(L, bytes, null, to_luastring(name));
  const status = lauxlib.luaL_loadbuffer(L, to_luastring(source), null, to_luastring(name));
  if (status === lua.LUA_OK) compiled.set(source, dump(L));
  return status;
}

/** The chunks this process has bytecode of (base64), keyed by their text: what the CLI's build defines. */
export function sandboxBytecode(): Record<string, string> {
  return Object.fromEntries([...compiled].map(([source, bytes]) => [source, Buffer.from(bytes).toString('base64')]));
}

/** The bytecode of the function on top of L's stack. */
function dump(L: LuaState): Uint8Array {
  const parts: Uint8Array[] = [];
  lua.lua_dump(L, (_: LuaState, b: Uint8Array, size: number) => (parts.push(b.slice(0, size)), 0), null, false);
  return Buffer.concat(parts);
}
