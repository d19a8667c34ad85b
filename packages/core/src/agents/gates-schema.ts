import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import { readGates, type GateBlock } from './gate-spec.js';

/**
 * gates: at a boundary (front matter, config{}): read into blocks, a problem as the one issue.
 * Apart from gate-spec so the commands that only show gates (shop status) load no zod.
 */
export const GatesSchema = lazySchema(() =>
  z.unknown().transform((v, ctx): GateBlock[] => {
    const read = readGates(v);
    if (typeof read !== 'string') return read;
    ctx.addIssue({ code: 'custom', message: read });
    return z.NEVER;
  }),
);
