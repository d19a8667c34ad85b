import type { AnyCall } from './definition.js';

/**
 * A host call's Lua arguments (already read as JS) checked and parsed: the request, or the
 * error to raise at the call's line.
 */
export function parseArgs(def: AnyCall, args: unknown[]): { type: string } | string {
  // An argument past the last one a call takes would be ignored without a word (a timeout
  // given as run()'s third argument never applied): refused, like an unknown option.
  let given = args.length;
  while (given > 0 && args[given - 1] == null) given--;
  if (given > def.max) {
    const { usage, max, hint } = def;
    return `${usage} takes at most ${max} argument${max === 1 ? '' : 's'}; got ${given}${hint ?? ''}`;
  }
  return def.parse(args);
}
