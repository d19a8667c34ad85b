/**
 * The one change Shop makes to fengari's own source, so that a run's Lua is bounded inside
 * the VM where no Lua API reaches: `..` (luaV_concat) allocated its result unchecked — a
 * doubling loop passed 6 GB — and the string buffers of string.format, string.pack … and
 * every copy of a string grew the same way. Each site now tells the state's `shopBounds`
 * (lua-memory.ts) how many bytes it is about to allocate, before it does; that may raise a
 * Lua error. A call nesting past fengari's limit is handed to it too, to name the workflow's
 * line (fengari said only "JS stack overflow"). And a string used as a table key is keyed by
 * its bytes one character each: fengari joined their hex digits in a loop — a 64 MiB key
 * took seconds per use (nothing could stop it; 4 GB of RSS), and "\1#" and "\18\3" were one key.
 *
 * Applied as fengari's files are loaded: by Node (fengari-load-patched.ts) when core runs
 * from its sources or dist, and by esbuild (scripts/bundle.mjs) in the bundled CLI. Each
 * `find` must occur exactly once, so a fengari that changed under it fails loudly instead
 * of running unbounded; and patched-fengari.ts refuses to start a VM when the patch is not in effect.
 */
interface SourcePatch {
  /** Path inside the fengari package. */
  file: string;
  find: string;
  replace: string;
}

export const FENGARI_PATCHES: readonly SourcePatch[] = [
  {
    file: 'src/lvm.js',
    find: '            let buff = new Uint8Array(tl);\n',
    replace:
      "            if (L.l_G.shopBounds !== undefined) L.l_G.shopBounds.allocating(L, tl, 'concat');\n            let buff = new Uint8Array(tl);\n",
  },
  {
    file: 'src/lauxlib.js',
    find: '        let newbuff = new Uint8Array(newsize);  /* create larger buffer */\n',
    replace:
      "        if (B.L.l_G.shopBounds !== undefined) B.L.l_G.shopBounds.allocating(B.L, newsize, 'buffer');\n        let newbuff = new Uint8Array(newsize);  /* create larger buffer */\n",
  },
  {
    file: 'src/lstring.js',
    find: 'const luaS_new = function(L, str) {\n    return luaS_bless(L, luastring_from(str));\n',
    replace:
      "const luaS_new = function(L, str) {\n    if (L.l_G.shopBounds !== undefined) L.l_G.shopBounds.allocating(L, str.length, 'copy');\n    return luaS_bless(L, luastring_from(str));\n",
  },
  {
    file: 'src/lstring.js',
    find: '    let len = str.length;\n    let s = "|";\n    for (let i=0; i<len; i++)\n        s += str[i].toString(16);\n    return s;\n',
    replace:
      '    return "|" + (str.length <= 64 ? String.fromCharCode.apply(null, str) : Buffer.from(str.buffer, str.byteOffset, str.length).toString("latin1"));\n',
  },
  {
    file: 'src/ldo.js',
    find: '    if (L.nCcalls === LUAI_MAXCCALLS)\n        ldebug.luaG_runerror(L, to_luastring("JS stack overflow", true));\n',
    replace:
      '    if (L.nCcalls === LUAI_MAXCCALLS) {\n        if (L.l_G.shopBounds !== undefined) L.l_G.shopBounds.tooDeep(L);\n        ldebug.luaG_runerror(L, to_luastring("JS stack overflow", true));\n    }\n',
  },
];

/** The fengari files the patch changes (paths inside the package). */
export const PATCHED_FILES: readonly string[] = [...new Set(FENGARI_PATCHES.map((p) => p.file))];

/** `source` (fengari's `file`) with Shop's changes; throws when a change does not apply exactly once. */
export function patchFengariSource(file: string, source: string): string {
  let out = source;
  for (const p of FENGARI_PATCHES.filter((q) => q.file === file)) {
    const parts = out.split(p.find);
    if (parts.length !== 2) {
      throw new Error(
        `fengari's ${file} is not the one Shop's bounds were written for (${parts.length - 1} places match a change, not 1): pin fengari 0.1.5 or update packages/core/src/lua/fengari-patch.ts`,
      );
    }
    out = parts.join(p.replace);
  }
  return out;
}
