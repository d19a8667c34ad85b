import type { AskClaim } from '@shop/core';
import { localTime, localTimeAgo } from './time.js';

/** "Claimed by ann (web) since 2026-11-24 14:02:05 +01:00 (5m ago); it ages out at …" — status and shop claim say it alike. */
export function claimedLine(c: Pick<AskClaim, 'by' | 'since' | 'until'> & { channel: string }): string {
  return `Claimed by ${c.by} (${c.channel}) since ${localTimeAgo(c.since)}; it ages out at ${localTime(c.until)} unless renewed (shop claim again)`;
}
