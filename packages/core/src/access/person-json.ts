import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import type { Person } from '../store/access-store.js';

/** `shop access list --json` (and the server's list of people): never a token, not even its hash. */
export const PersonJsonSchema = lazySchema(() =>
  z.object({
    name: z.string(),
    /** `login` a person's login link, `token` an API token (shop access add --token). */
    kind: z.enum(['login', 'token']),
    created_at: z.string(),
    created_by: z.string(),
    last_seen_at: z.string().nullable(),
    revoked_at: z.string().nullable(),
  }),
);
export type PersonJson = z.infer<typeof PersonJsonSchema>;

/** `shop access add --json`: the login link, shown this once. */
export const AccessAddedJsonSchema = lazySchema(() => z.object({ name: z.string(), login_url: z.string() }));
export type AccessAddedJson = z.infer<typeof AccessAddedJsonSchema>;

/** `shop access add --token --json`: the API token, shown this once. */
export const ApiTokenAddedJsonSchema = lazySchema(() =>
  z.object({ name: z.string(), kind: z.literal('token'), token: z.string() }),
);
export type ApiTokenAddedJson = z.infer<typeof ApiTokenAddedJsonSchema>;

/** `shop access revoke --json`: who was revoked and what they held. */
export const AccessRevokedJsonSchema = lazySchema(() =>
  z.object({ name: z.string(), kind: z.enum(['login', 'token']) }),
);
export type AccessRevokedJson = z.infer<typeof AccessRevokedJsonSchema>;

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function personJson(p: Person): PersonJson {
  return {
    name: p.name,
    kind: p.kind,
    created_at: iso(p.createdAt)!,
    created_by: p.createdBy,
    last_seen_at: iso(p.lastSeenAt),
    revoked_at: iso(p.revokedAt),
  };
}
