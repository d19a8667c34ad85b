/** What nodePorts loads only when a run is driven (ports.loadEngine): one lazy entry for the bundle. */
export { cachedAgentLoader } from '../agents/agent-cache.js';
export { ClaudeRunner } from '../agents/claude-runner.js';
export { SignalWatcher } from '../signals/signal-watcher.js';
