/**
 * NUL in text, alike on every store. PostgreSQL's text cannot hold U+0000 (SQLite's can), so
 * "keep it" is impossible there; refusing it would fail a run over one stray byte in an agent's
 * output. Shop stores U+FFFD (the replacement character) in its place, on every store, in every
 * string a store operation is handed — nested in JSON values and as object keys too — so what
 * one store shows (shop status --json, the web) the other shows as well.
 */

export const NUL_STAND_IN = '\uFFFD';

/** `text` with every NUL replaced by U+FFFD (the same string when it has none). */
export function nulFreeText(text: string): string {
  return text.includes('\u0000') ? text.replaceAll('\u0000', NUL_STAND_IN) : text;
}

/** Plain data Shop walks: strings, arrays, and objects made as literals (or with no prototype). */
const isPlain = (o: object) => {
  const proto = Object.getPrototypeOf(o) as unknown;
  return proto === Object.prototype || proto === null;
};

/** Whether any string in `value` (an object key too) holds a NUL: the common answer, no, costs no allocation. */
function hasNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.some(hasNul);
  if (!isPlain(value)) return false;
  for (const k in value) if (k.includes('\u0000') || hasNul((value as Record<string, unknown>)[k])) return true;
  return false;
}

/**
 * `value` with every string in it NUL-free: plain objects and arrays are walked (and copied
 * only where something changed); anything else (a Buffer, a function, a class instance) is
 * passed through as it is. Every store write passes here: a value without a NUL is looked
 * at once and handed back as it is.
 */
export function withoutNul<T>(value: T): T {
  return hasNul(value) ? cleaned(value) : value;
}

function cleaned<T>(value: T): T {
  if (typeof value === 'string') return nulFreeText(value) as T;
  if (value === null || typeof value !== 'object') return value;
  // Only what holds a NUL is copied: a part without one is handed back as it is.
  if (Array.isArray(value)) return value.map(withoutNul) as T;
  if (!isPlain(value)) return value;
  // Rebuilt in the same order.
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [nulFreeText(k), withoutNul(v as unknown)])) as T;
}

/**
 * The store with every method's arguments made NUL-free before the adapter sees them: the one
 * place this is decided, whichever adapter is behind (each adapter's open returns this).
 */
export function nulFreeStore<S extends object>(store: S): S {
  const wrapped = new Map<PropertyKey, { of: unknown; fn: unknown }>();
  return new Proxy(store, {
    get(target, prop) {
      // Read on the store itself, not the proxy: getters and private fields see their own object.
      const value = Reflect.get(target, prop) as unknown;
      if (typeof value !== 'function') return value;
      const known = wrapped.get(prop);
      if (known?.of === value) return known.fn;
      const fn = (...args: unknown[]) => (value as (...a: unknown[]) => unknown).apply(target, args.map(withoutNul));
      wrapped.set(prop, { of: value, fn });
      return fn;
    },
  });
}
