import * as z from 'zod';
import { lazySchema } from '../../lazy-schema.js';

// What run() asks for (run.ts parses it), apart so the engine's agent step can name it without the call.

export const RunOptionsSchema = lazySchema(() =>
  z.strictObject({
    prompt: z.string().optional(),
    model: z.string().optional(),
    human: z.boolean().optional(),
    timeout: z.number().positive().optional(),
    statuses: z.array(z.string()).optional(),
    /** At most this much for the call (Claude's --max-budget-usd); within the run's budget_usd. */
    budget_usd: z.number().positive().optional(),
    /** Attempts after the first when the agent fails transiently (overloaded, rate limit, network); config{retries} otherwise. */
    retries: z.number().int().min(0).max(10).optional(),
  }),
);
export type RunOptions = z.infer<typeof RunOptionsSchema>;

export type RunRequest = { type: 'run'; agent: string; prompt: string | null; opts: RunOptions };
