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
 * allocate without bound. Found once per process through fengari's C API alone (no
 * parser, no libraries), so it costs a fresh process next to nothing.
 */
export function requirePatchedFengari(): void {
  problem ??= probeFengari(fengari);
  if (problem) throw new Error(problem);
}

/** fengari's limit of nested calls (llimits.js LUAI_MAXCCALLS). */
const MAX_CALLS = 200;

/** Null when `f` (a fengari) has every patched site in effect, else what is missing. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a fengari module, untyped like fengari itself (fengari.d.ts)
export function probeFengari(f: any): string | null {
  const { lua, lauxlib, to_luastring } = f;
  const L = lauxlib.luaL_newstate();
  const seen = new Set<string>();
  setPatchedSites(L, { allocating: (_L, _n, site) => seen.add(site), tooDeep: () => seen.add('deep') });
  lua.lua_pushstring(L, to_luastring('ab'));
  lua.lua_pushvalue(L, -1);
  lua.lua_concat(L, 2);
  const b = new lauxlib.luaL_Buffer();
  lauxlib.luaL_buffinit(L, b);
  lauxlib.luaL_addstring(b, to_luastring('ab'));
  // Two keys whose bytes' hex digits run together alike ("1" "23", "12" "3") are two keys.
  lua.lua_createtable(L, 0, 1);
  lua.lua_pushboolean(L, true);
  lua.lua_setfield(L, -2, to_luastring('\x01#'));
  if (lua.lua_getfield(L, -1, to_luastring('\x12\x03')) === lua.LUA_TNIL) seen.add('hash');
  // A call made where calls already nest as deep as fengari allows.
  lua.lua_pushcfunction(L, () => 0);
  (L as { nCcalls: number }).nCcalls = MAX_CALLS - 1;
  lua.lua_pcall(L, 0, 0, 0);
  const missing = ['concat', 'buffer', 'copy', 'deep', 'hash'].filter((site) => !seen.has(site));
  if (missing.length === 0) return null;
  return `Shop's Lua bounds are not in this fengari (no ${missing.join(', ')} check): fengari was loaded unpatched, so no workflow is run; import it only through packages/core/src/lua/patched-fengari.ts`;
}
