import * as z from 'zod';
import { lazySchema } from '../../lazy-schema.js';

// What sh() asks for (sh.ts parses it), apart so the engine's shell port can name it without the call.

export const ShOptionsSchema = lazySchema(() =>
  z.strictObject({
    timeout: z.number().positive().optional(),
    cwd: z.string().min(1).optional(),
  }),
);
type ShOptions = z.infer<typeof ShOptionsSchema>;

export type ShRequest = { type: 'sh'; cmd: string | null; argv: string[] | null; opts: ShOptions };
