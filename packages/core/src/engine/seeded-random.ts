/** mulberry32: a small seeded generator, so math.random replays the same numbers. */
export function seededRandom(seed: number) {
  let state = seed >>> 0;
  return {
    next: (): number => {
      state = (state + 0x6d2b79f5) >>> 0;
      let t = state;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    },
    reseed: (s: number) => {
      state = Math.floor(s) >>> 0;
    },
  };
}
