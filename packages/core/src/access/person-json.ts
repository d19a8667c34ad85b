import { z } from 'zod';
import type { Person } from '../store/access-store.js';

/** `shop access list --json` (and the server's list of people): never a token, not even its hash. */
export const PersonJsonSchema = z.object({
  name: z.string(),
  created_at: z.string(),
  created_by: z.string(),
  last_seen_at: z.string().nullable(),
  revoked_at: z.string().nullable(),
});
export type PersonJson = z.infer<typeof PersonJsonSchema>;

/** `shop access add --json`: the login link, shown this once. */
export const AccessAddedJsonSchema = z.object({ name: z.string(), login_url: z.string() });
export type AccessAddedJson = z.infer<typeof AccessAddedJsonSchema>;

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function personJson(p: Person): PersonJson {
  return {
    name: p.name,
    created_at: iso(p.createdAt)!,
    created_by: p.createdBy,
    last_seen_at: iso(p.lastSeenAt),
    revoked_at: iso(p.revokedAt),
  };
}
