/**
 * A zod schema built when it is first used, not when its module loads. Building zod's schemas
 * is slow in a process that has just started (the first one ~6 ms, and ~25 ms in all for the
 * modules a `shop resume` loads, most of them never used by it); a command pays only for those
 * it uses. The value stands for the schema itself (parse, safeParse, shape, optional() …): every
 * look at it is handed to the schema, made on the first.
 */
export function lazySchema<T extends object>(make: () => T): T {
  let built: T | undefined;
  const schema = () => (built ??= make());
  return new Proxy({} as T, {
    get: (_, key) => {
      const value = Reflect.get(schema(), key);
      // A method is called on the schema, not on this stand-in.
      return typeof value === 'function' ? value.bind(schema()) : value;
    },
    has: (_, key) => Reflect.has(schema(), key),
    ownKeys: () => Reflect.ownKeys(schema()),
    getOwnPropertyDescriptor: (_, key) => {
      const d = Reflect.getOwnPropertyDescriptor(schema(), key);
      // A stand-in may not report a property as fixed that it does not hold itself.
      return d ? { ...d, configurable: true } : undefined;
    },
    getPrototypeOf: () => Reflect.getPrototypeOf(schema()),
    set: () => false,
    defineProperty: () => false,
    deleteProperty: () => false,
  });
}
