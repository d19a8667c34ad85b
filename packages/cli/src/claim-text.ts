import type { AskClaim } from '@shop/core/types';
import { localTime, localTimeAgo } from './time.js';

/** "Claimed by ann since 2026-11-24 14:02:05 +01:00 (5m ago) (web), until 15:02:05 …" — status and shop claim say it alike. */
export function claimedLine(c: Pick<AskClaim, 'by' | 'since' | 'until'> & { channel: string }): string {
  return `Claimed by ${c.by} since ${localTimeAgo(c.since)} (${c.channel}); it ages out at ${localTime(c.until)} unless renewed (shop claim again)`;
}
