import type { CallDefinition } from './definition.js';

type StuckRequest = { type: 'stuck'; reason: string };

/** stuck(reason): ends the run as stuck; nothing is recorded as a call. */
export const stuckCall: CallDefinition<StuckRequest> = {
  name: 'stuck',
  kind: null,
  flow: 'end',
  usage: 'stuck(reason)',
  max: 1,
  parse: ([reason]) => ({ type: 'stuck', reason: reason == null ? 'stuck' : String(reason) }),
  describe: (req) => `stuck(${JSON.stringify(req.reason)})`,
  quoted: (req) => `stuck(${JSON.stringify(req.reason)})`,
  ends: (req) => ({
    status: 'stuck',
    reason: req.reason,
    event: { type: 'stuck', actor: 'workflow', channel: 'engine', data: { reason: req.reason } },
  }),
};
