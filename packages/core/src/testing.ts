/** Helpers for the front ends' own tests (fake runs and asks, a scripted flow, a SQLite store): never for product code. */

// engine
export { createRun } from './engine/drive-run.js';
export { agentAsk, fakeRun, liveLook, pauseAsk, shown } from './engine/testing/executions.js';
export { FLOW_PATH, newFlow } from './engine/testing/flow.js';
export type { Script } from './engine/testing/scripted-runner.js';

// hooks
export { githubDelivery, shopDelivery } from './hooks/testing/github-delivery.js';
export type { GithubDeliveryOptions, ShopDeliveryOptions, TestDelivery } from './hooks/testing/github-delivery.js';

// lua
export { MAX_VALUE_BYTES } from './lua/convert.js';

// operations
export { claimAsk } from './operations/claim-ask.js';
export { executionJson, pendingJson, runJson } from './operations/json-views.js';

// store
export { openSqliteStore } from './store/sqlite/sqlite-store.js';

// testing
export { until } from './testing/until.js';
