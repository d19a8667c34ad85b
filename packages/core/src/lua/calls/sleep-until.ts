import { badSeconds, MAX_SLEEP_SECONDS, startTimer, timerDue } from './sleep.js';
import type { CallDefinition } from './definition.js';

type SleepUntilRequest = { type: 'sleep_until'; until: number };

/**
 * sleep_until(epoch_seconds): sleep() to a point in time. A time already past returns at
 * once; one more than 366 days ahead is refused at its line.
 */
export const sleepUntilCall: CallDefinition<SleepUntilRequest> = {
  name: 'sleep_until',
  kind: 'sleep',
  flow: 'call',
  usage: 'sleep_until(epoch_seconds)',
  max: 1,
  parse([until]) {
    const bad = badSeconds(until, 'sleep_until(epoch_seconds): epoch_seconds');
    if (bad) return bad;
    // Judged by this machine's clock as the line runs (the due time itself is fixed by the store's): time only
    // moves on, so a call accepted once is accepted on every replay.
    if ((until as number) * 1000 - Date.now() > MAX_SLEEP_SECONDS * 1000) {
      return `sleep_until(epoch_seconds): at most 366 days ahead; ${until} is ${Math.round(((until as number) - Date.now() / 1000) / 86400)} days away`;
    }
    return { type: 'sleep_until', until: until as number };
  },
  describe: (req) => `sleep_until(${req.until})`,
  fingerprint: () => 'sleep_until()',
  quoted: (req) => `sleep_until(${req.until})`,
  start: (world, key, req, rec, signal) => startTimer(world, key, req, rec, () => Math.round(req.until * 1000), signal),
  poll: (world, exec) => timerDue(world, exec),
};
