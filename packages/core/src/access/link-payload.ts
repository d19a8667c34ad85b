import * as z from 'zod';

/**
 * The fields a signed link's payload shares with every other (answer links, event URLs): the
 * run, the call that made it (a key such as 3/1/2) and when it expires, in ms. Built inside each
 * link's lazy schema, so no schema is made before a link is read.
 */
export const linkPayloadFields = () => ({
  r: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
  k: z
    .string()
    .regex(/^\d+(?:\/\d+)*$/)
    .max(400),
  e: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER),
});
