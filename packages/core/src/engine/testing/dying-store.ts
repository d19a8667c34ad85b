import type { Store } from '../../store/store.js';

/** What a driver killed -9 would see of its own calls: the process is gone. */
export class Killed extends Error {}

/**
 * The store as a driver that dies at its n-th write (counting the methods named in `writes`)
 * sees it: killed just before that write, or just after it committed; dead from then on.
 */
export function dyingAt(
  store: Store,
  writes: ReadonlySet<string>,
  n: number,
  when: 'before' | 'after',
  counter: { writes: number },
): Store {
  let dead = false;
  return new Proxy(store, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function' || prop === 'close') return value;
      return async (...args: unknown[]) => {
        if (dead) throw new Killed('the process is gone');
        if (!writes.has(String(prop))) return value.apply(target, args);
        const at = ++counter.writes;
        if (at === n && when === 'before') {
          dead = true;
          throw new Killed(`killed before ${String(prop)}`);
        }
        const result = await value.apply(target, args);
        if (at === n) {
          dead = true;
          throw new Killed(`killed after ${String(prop)}`);
        }
        return result;
      };
    },
  });
}
