import { describeOwner, storeLiveness } from '../engine/ownership.js';
import type { EnginePorts } from '../engine/ports.js';
import { actionJson, eventsSince, inboxJson, logJson, recentEvents, runDetailJson, runsJson } from './queries.js';
import { loadRunView } from './run-view.js';
import type { ShopOperations } from './shop-operations.js';
import { workersJson } from './workers-view.js';

/** What the reads need of the world: the store, and who is live (this process, the store's clock, the lease). */
export type ReadPorts = Pick<EnginePorts, 'store' | 'self' | 'processAlive' | 'leaseMs'>;

/**
 * The reads of ShopOperations that need no more than ReadPorts: a read-only command (shop list,
 * inbox, log, workers) builds these alone — neither the engine's ports nor the changes are
 * loaded for it. shopOperations has the same functions.
 */
export type ReadOperations = Pick<
  ShopOperations,
  | 'liveness'
  | 'describeOwner'
  | 'inbox'
  | 'runs'
  | 'runDetail'
  | 'runView'
  | 'log'
  | 'eventsSince'
  | 'recentEvents'
  | 'action'
  | 'run'
  | 'openRuns'
  | 'listRuns'
  | 'waitingAsks'
  | 'events'
  | 'openCalls'
  | 'call'
  | 'answerOf'
  | 'sessions'
  | 'workers'
>;

export function readOperations(ports: ReadPorts): ReadOperations {
  const { store } = ports;
  // Leases are judged by the store's clock, and a run's ages are measured against its times:
  // every view built here shows a run live or interrupted by this one rule.
  const liveness = storeLiveness(ports);
  return {
    liveness,
    describeOwner: (owner) => describeOwner(owner, ports.self),
    inbox: () => inboxJson(store, liveness),
    runs: (query) => runsJson(store, liveness, query),
    runDetail: (id, opts) => runDetailJson(store, liveness, id, opts),
    runView: (id, opts) => loadRunView(store, liveness, id, opts),
    log: (id) => logJson(store, liveness, id),
    eventsSince: (id, afterId) => eventsSince(store, id, afterId),
    recentEvents: (id, count) => recentEvents(store, id, count),
    action: (act) => actionJson(store, liveness, act),
    run: (id) => store.getRun(id),
    openRuns: () => store.listOpenRuns(),
    listRuns: (filter) => store.listRuns(filter),
    waitingAsks: () => store.listWaiting(),
    events: (id, afterId) => store.listEvents(id, afterId),
    openCalls: (id) => store.openExecutions(id),
    call: (id, key) => store.getExecution(id, key),
    answerOf: (runId, key, ask) => store.getAnswer(runId, key, ask),
    sessions: (runId) => store.listSessions(runId),
    // Heartbeats are written by the store's clock: judged by it too, whatever this machine's says.
    workers: () => workersJson(store, liveness, store.now(), ports.leaseMs),
  };
}
