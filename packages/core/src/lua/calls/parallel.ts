import type { CallDefinition } from './definition.js';

type ParallelRequest = { type: 'parallel'; branches: number };

/**
 * parallel(fn1, fn2, …): its functions become threads (the VM checks they are functions and
 * hands over their count); the scheduler's Branches record and join them.
 */
export const parallelCall: CallDefinition<ParallelRequest> = {
  name: 'parallel',
  kind: 'parallel',
  flow: 'branches',
  usage: 'parallel(fn1, fn2, …)',
  max: Infinity,
  parse: ([branches]) => ({ type: 'parallel', branches: branches as number }),
  describe: (req) => `parallel(${req.branches} branches)`,
  quoted: (req) => `parallel(${req.branches} branches)`,
};
