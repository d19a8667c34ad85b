import { describe } from 'vitest';
import type { StoreAdapter } from './fixtures.js';
import { accessAndLists } from './access-lists.js';
import { answersAndHolds } from './answers.js';
import { atomicity } from './atomicity.js';
import { childRuns } from './child-runs.js';
import { claims } from './claims.js';
import { executionsAndFinishing } from './executions.js';
import { hooks } from './hooks.js';
import { nulText } from './nul-text.js';
import { queue } from './queue.js';
import { metricCounts } from './metrics.js';
import { refusals } from './refusals.js';
import { schedules } from './schedules.js';
import { runsAndOwnership } from './runs-ownership.js';
import { runRules } from './run-rules.js';
import { sentEvents } from './sent-events.js';
import { sessionsAndReports } from './sessions.js';
import { spend } from './spend.js';
import { stopEventsDelete } from './stop-events-delete.js';
import { timers } from './timers.js';
import { waits } from './waits.js';
import { workerRegistry } from './workers.js';

export type { StoreAdapter } from './fixtures.js';

/**
 * The store contract: the rules every Store adapter keeps (SQLite now, PostgreSQL next),
 * written against the port alone. Call it from an adapter's test file.
 */
export function storeContract(adapter: StoreAdapter): void {
  describe(`store contract: ${adapter.name}`, () => {
    runsAndOwnership(adapter);
    executionsAndFinishing(adapter);
    answersAndHolds(adapter);
    timers(adapter);
    waits(adapter);
    childRuns(adapter);
    stopEventsDelete(adapter);
    claims(adapter);
    sessionsAndReports(adapter);
    accessAndLists(adapter);
    atomicity(adapter);
    refusals(adapter);
    runRules(adapter);
    workerRegistry(adapter);
    nulText(adapter);
    sentEvents(adapter);
    queue(adapter);
    metricCounts(adapter);
    spend(adapter);
    hooks(adapter);
    schedules(adapter);
  });
}
