/** What nodePorts loads only when a run is driven (ports.loadEngine): one lazy entry for the bundle. */
export { cachedAgentLoader } from '../agents/agent-cache.js';
export { CliRunner } from '../agents/cli-runner.js';
export { cliBin } from '../agents/dialects/dialect.js';
export { SignalWatcher } from '../signals/signal-watcher.js';
export { nodeRuleFiles } from '../rules/rule-files.js';
