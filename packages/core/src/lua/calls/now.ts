import type { CallDefinition } from './definition.js';

type NowRequest = { type: 'now' };

/** now(): the time, in epoch seconds, recorded so replay sees the same. */
export const nowCall: CallDefinition<NowRequest> = {
  name: 'now',
  kind: 'now',
  flow: 'call',
  usage: 'now()',
  max: 0,
  parse: () => ({ type: 'now' }),
  describe: () => 'now()',
  quoted: () => 'now()',
  start: (world, key, req, rec, signal) =>
    world.once(
      key,
      req,
      rec,
      { kind: 'now', fingerprint: 'now()', prompt: null },
      async () => world.ctx.ports.clock.now() / 1000,
      signal,
    ),
};
