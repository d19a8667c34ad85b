import fengari from './patched-fengari.js';
import { describe, expect, it } from 'vitest';
import { installPatterns } from './string-patterns.js';
import { boundsFor } from './testing/bounded-state.js';

const { lua, lauxlib, lualib, to_luastring } = fengari;

/** A plain Lua state: fengari's own string functions, or ours in their place. */
function state(ours: boolean, cap: number | null = null) {
  const L = lauxlib.luaL_newstate();
  lualib.luaL_openlibs(L);
  if (ours) installPatterns(L, boundsFor(L, cap));
  return L;
}

/** Runs a chunk returning one string (the results serialised in Lua), or the error raised. */
function run(L: unknown, code: string): string {
  if (lauxlib.luaL_loadbuffer(L, to_luastring(code), null, to_luastring('=t')) !== lua.LUA_OK)
    throw new Error(lua.lua_tojsstring(L, -1));
  const status = lua.lua_pcall(L, 0, 1, 0);
  const v = lua.lua_tojsstring(L, -1);
  lua.lua_pop(L, 1);
  return `${status === lua.LUA_OK ? 'ok' : 'error'}: ${v}`;
}

const SERIALISE = `
local function ser(...)
  local out = { select("#", ...) }
  for i = 1, select("#", ...) do out[#out + 1] = type((select(i, ...))) .. ":" .. tostring((select(i, ...))) end
  return table.concat(out, ",")
end
`;

const SUBJECTS = [
  '',
  'hello world',
  '  trim me  ',
  'a,b,,c',
  'key = value; k2=v2',
  'THE (quick) [brown] fox',
  '((a)(b))',
  'aaa',
  'x1y22z333',
  'tab\there\nnl',
  'café ünï',
  'abc%def',
  'THE END',
];
const PATTERNS = [
  '',
  'o',
  'l+',
  'l*',
  'l-',
  'l?',
  '^h',
  'd$',
  '^$',
  '.',
  '.-',
  '.*',
  '%a+',
  '%A+',
  '%d+',
  '%D',
  '%s*(.-)%s*$',
  '^%s*(.-)%s*$',
  '(%w+)%s*=%s*(%w+)',
  '%b()',
  '%b[]',
  '%f[%w]%w+',
  '%f[%W]',
  '[%a_][%w_]*',
  '[^,]*',
  '[a-c]+',
  '[%]]',
  '[]]',
  '[^%s]+',
  '()',
  '()a()',
  '(a)(a)',
  '(a)%1',
  '(%a)%1*',
  '%u+',
  '%l+',
  '%p+',
  '%c',
  '%x+',
  '%z',
  '%Z+',
  'a-b',
  '[a-]',
  '%.',
  '%%',
  '$',
  '^',
  'x%d+y?',
  '((a)(b))',
  '%(',
  '(()',
  '%',
  '[a',
  '(()))',
  '%1',
  '%b',
  '%f',
  '%fx',
  '%g+',
  '%G',
];

describe('string.find/match/gmatch/gsub: the same as fengari on every pattern and subject', () => {
  it('agrees on results and on error messages', () => {
    const theirs = state(false);
    const ours = state(true);
    let compared = 0;
    for (const s of SUBJECTS) {
      for (const p of PATTERNS) {
        const S = JSON.stringify(s).replace(/\\u00(..)/g, '\\x$1');
        const P = JSON.stringify(p);
        const chunks = [
          `return ser(string.find(${S}, ${P}))`,
          `return ser(string.find(${S}, ${P}, 3))`,
          `return ser(string.find(${S}, ${P}, -4))`,
          `return ser(string.find(${S}, ${P}, 1, true))`,
          `return ser(string.match(${S}, ${P}))`,
          `return ser(string.match(${S}, ${P}, 2))`,
          `local t = {} for a, b in string.gmatch(${S}, ${P}) do t[#t + 1] = ser(a, b) if #t > 50 then break end end return table.concat(t, "|")`,
          `return ser(string.gsub(${S}, ${P}, "<%0>"))`,
          `return ser(string.gsub(${S}, ${P}, "[%1]", 2))`,
          `return ser(string.gsub(${S}, ${P}, "%%"))`,
          `return ser(string.gsub(${S}, ${P}, function(a, b) return b and (a .. "+" .. tostring(b)) or (#a % 2 == 0 and a:upper() or nil) end))`,
          `return ser(string.gsub(${S}, ${P}, { a = "A", hello = 1, ["("] = false }))`,
          `return ser(string.gsub(${S}, ${P}, 7))`,
        ];
        for (const c of chunks) {
          const code = SERIALISE + c;
          expect(run(ours, code), code).toBe(run(theirs, code));
          compared++;
        }
      }
    }
    expect(compared).toBe(SUBJECTS.length * PATTERNS.length * 13);
  });

  it('agrees on bad arguments and bad replacement values', () => {
    const theirs = state(false);
    const ours = state(true);
    for (const c of [
      'string.gsub("abc", "b", true)',
      'string.gsub("abc", "b", "%2")',
      'string.gsub("abc", "b", "%x")',
      'string.gsub("abc", "(b)", function() return {} end)',
      'string.find(nil, "a")',
      'string.gsub("abc", "%w", "%1")',
    ]) {
      const code = SERIALISE + `return ser(${c})`;
      expect(run(ours, code), c).toBe(run(theirs, code));
    }
  });
});

describe('a pattern that backtracks without end', () => {
  it('fails with "pattern too complex" at the caller, the same way every time', () => {
    const ours = state(true);
    const code = 'return ("a"):rep(3000):find(".-.-.-b")';
    const first = run(ours, code);
    expect(first).toMatch(/^error: t:1: pattern too complex: over 5\d{6} matching steps on a 3000-byte string/);
    expect(run(ours, code)).toBe(first);
  });

  it('each gmatch step and each gsub has its budget, so long subjects with simple patterns still work', () => {
    const ours = state(true);
    expect(
      run(ours, 'local s = ("ab "):rep(200000) local n = 0 for w in s:gmatch("%a+") do n = n + 1 end return n'),
    ).toBe('ok: 200000');
    expect(run(ours, 'local s = ("ab "):rep(200000) return select(2, s:gsub("%s+", "_"))')).toBe('ok: 200000');
  });
});

describe('gsub under the Lua memory cap', () => {
  it('refuses a result past the cap with "not enough memory" at the caller', () => {
    // A cap well above what the state itself holds (its libraries: ~70 KB).
    const ours = state(true, 1_000_000);
    expect(run(ours, 'return (("x"):rep(600000):gsub("x", "yy"))')).toBe(
      "error: t:1: not enough memory: string.gsub would make a string of 1000002 bytes, over the run's Lua memory cap of 1000000 bytes (config{ lua_memory_mb = … })",
    );
    expect(run(ours, 'return #(("x"):rep(200000):gsub("x", "yy"))')).toBe('ok: 400000');
  });
});
