import type { CallDefinition } from './definition.js';
import { eventArgs, eventCallArgs } from './event-options.js';

type EventUrlRequest = { type: 'event_url'; name: string; key: string | null; expires: number | null };

const USAGE = 'event_url(name [, {key = K, expires = seconds}])';

/**
 * event_url(name [, {key, expires}]): a signed, single-use URL under shop serve's public address
 * (default: 7 days) whose POST (a JSON body: the data) sends that event to this run alone — for a
 * CI job or a deploy hook to call back. Made once and recorded: replay returns the same URL.
 * Without a public address the call fails, saying how to record one.
 */
export const eventUrlCall: CallDefinition<EventUrlRequest> = {
  name: 'event_url',
  kind: 'event_url',
  flow: 'call',
  usage: USAGE,
  max: 2,
  parse(args) {
    const a = eventArgs(USAGE, 'expires', args);
    if (typeof a === 'string') return a;
    if (a.seconds === 0) return `${USAGE}: expires must be more than 0 seconds`;
    return { type: 'event_url', name: a.name, key: a.key, expires: a.seconds };
  },
  describe: (req) => `event_url(${eventCallArgs(req.name, req.key)})`,
  quoted: (req) => `event_url(${eventCallArgs(req.name, req.key)})`,
  start: (world, key, req, rec, signal) => {
    const { ports, run } = world.ctx;
    const target = { runId: run.id, key, name: req.name, eventKey: req.key };
    const ttlMs = req.expires === null ? undefined : Math.round(req.expires * 1000);
    return world.once(
      key,
      req,
      rec,
      { kind: 'event_url', fingerprint: eventUrlCall.describe(req), prompt: null },
      async () => (await import('../../access/event-url.js')).eventUrl(ports.store, ports.clock, target, ttlMs),
      signal,
    );
  },
};
