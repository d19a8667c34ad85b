// First, so that fengari's files are patched as Node loads them (a no-op in the bundled CLI).
import './fengari-load-patched.js';
import fengari from 'fengari';

/** fengari with Shop's bounds (fengari-patch.ts). Core imports fengari only from here. */
export default fengari;

/** What the patched fengari calls on a state's global `shopBounds` (lua-memory.ts implements it). */
export interface PatchedSites {
  /** About to allocate `bytes` for a string: `..` (concat), a growing buffer, or a copy. May raise a Lua error. */
  allocating(L: unknown, bytes: number, site: 'concat' | 'buffer' | 'copy'): void;
  /** Calls nest past fengari's limit (200): may raise the error itself, naming the line. */
  tooDeep(L: unknown): void;
}

/** Hooks the patched fengari calls for this state (every thread of it shares them). */
export function setPatchedSites(L: unknown, sites: PatchedSites): void {
  (L as { l_G: { shopBounds?: PatchedSites } }).l_G.shopBounds = sites;
}

let problem: string | null | undefined;

/**
 * Throws unless every patched site is in effect: a VM without them would let a workflow
 * allocate without bound. Found by running a few lines once per process (well under 1 ms).
 */
export function requirePatchedFengari(): void {
  problem ??= probeFengari(fengari);
  if (problem) throw new Error(problem);
}

const PROBE = `
local s = ...
local t = s .. s
local f = string.format("%s%s", t, t)
local deep
deep = setmetatable({}, { __index = function(_, k) return deep[k] end })
pcall(function() return deep.x end)
local keys = { ["\\1#"] = true }
return keys["\\18\\3"] == nil
`;

/** Null when `f` (a fengari) has every patched site in effect, else what is missing. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function probeFengari(f: any): string | null {
  const { lua, lauxlib, lualib, to_luastring } = f;
  const L = lauxlib.luaL_newstate();
  const seen = new Set<string>();
  setPatchedSites(L, { allocating: (_L, _n, site) => seen.add(site), tooDeep: () => seen.add('deep') });
  for (const [name, open] of [['_G', lualib.luaopen_base], ['string', lualib.luaopen_string]] as const) {
    lauxlib.luaL_requiref(L, to_luastring(name), open, 1);
    lua.lua_pop(L, 1);
  }
  const loaded = lauxlib.luaL_loadstring(L, to_luastring(PROBE)) === lua.LUA_OK;
  lua.lua_pushstring(L, to_luastring('ab'));
  const ran = loaded && lua.lua_pcall(L, 1, 1, 0) === lua.LUA_OK;
  // Two keys whose bytes' hex digits run together the same way ("1" "23", "12" "3") are two keys.
  if (ran && lua.lua_toboolean(L, -1)) seen.add('hash');
  const missing = ['concat', 'buffer', 'copy', 'deep', 'hash'].filter((site) => !seen.has(site));
  if (ran && missing.length === 0) return null;
  return `Shop's Lua bounds are not in this fengari (${ran ? `no ${missing.join(', ')} check` : 'the probe failed'}): fengari was loaded unpatched, so no workflow is run; import it only through packages/core/src/lua/patched-fengari.ts`;
}
