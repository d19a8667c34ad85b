import { inert } from '@shop/core';
import type { ScheduleEvent } from '@shop/core';

/** A worker's line (and JSON event) for what it did with a schedule's slots. */
export function scheduleLine(e: ScheduleEvent): { event: Record<string, unknown>; line: string } {
  const name = `schedule ${e.schedule}`;
  switch (e.type) {
    case 'schedule_fired':
      return {
        event: { type: e.type, schedule: e.schedule, slot: e.slot, run: e.run.id },
        line: `${name}: slot ${e.slot} fired run ${e.run.id} (${e.run.spec})`,
      };
    case 'schedule_skipped': {
      const count = `${e.count}${e.atLeast ? '+' : ''} slot${e.count === 1 ? '' : 's'}`;
      const when = e.first === e.last ? e.first : `${e.first} … ${e.last}`;
      const why =
        e.outcome === 'skipped_overlap' ? 'its previous run is not ended (overlap skip)' : 'missed (catch-up)';
      return {
        event: {
          type: e.type,
          schedule: e.schedule,
          outcome: e.outcome,
          count: e.count,
          at_least: e.atLeast,
          first: e.first,
          last: e.last,
        },
        line: `${name}: ${count} skipped, ${why}: ${when}`,
      };
    }
    case 'schedule_failed':
      return {
        event: { type: e.type, schedule: e.schedule, message: e.message },
        line: `${name}: could not queue its run: ${inert(e.message, false)}; its slots wait until it can`,
      };
  }
}
