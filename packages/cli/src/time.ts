import { localTime } from '@shop/core';
import { ago } from './table.js';

export { localTime };

/** "2026-11-23 14:05:12 +01:00 (5m ago)". */
export const localTimeAgo = (ms: number, now = Date.now()) => `${localTime(ms)} (${ago(ms, now)} ago)`;
