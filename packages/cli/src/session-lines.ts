import { bytes } from '@shop/core';
import type { SessionJson } from '@shop/core';

/**
 * shop status: where the run's agent sessions live. Kept in the store, any machine's worker
 * (or shop continue) resumes them; pinned (a transcript over the cap), only their host can.
 */
export function sessionLines(sessions: SessionJson[]): string[] {
  if (!sessions.length) return [];
  const kept = sessions.filter((s) => s.kept === 'store');
  const pinned = sessions.filter((s) => s.kept === 'pinned');
  const lines: string[] = [];
  if (kept.length) {
    const stored = kept.reduce((n, s) => n + (s.stored_bytes ?? 0), 0);
    const hosts = [...new Set(kept.map((s) => s.host))].join(', ');
    lines.push(
      `Sessions: ${kept.length} kept in the store (${bytes(stored)} compressed; last kept on ${hosts}): resumable on any machine`,
    );
  }
  for (const s of pinned) {
    lines.push(
      `Sessions: call ${s.call}'s session is pinned to ${s.host} (its transcript, ${bytes(s.bytes)}, is over the store's cap, SHOP_SESSION_CAP_MB): it resumes only there`,
    );
  }
  return lines;
}
