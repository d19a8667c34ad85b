/**
 * What a workflow asks of the host. Each effectful host function yields one of these; the
 * scheduler fulfils it under the thread's next call key and resumes the thread with the
 * result. Each call is defined in calls/ (one file per primitive) and listed in calls/registry.ts.
 */

export type { RunOptions, RunRequest } from './calls/run-request.js';
export type { ShRequest } from './calls/sh-request.js';
export { parseConfig, type WorkflowConfig } from './workflow-config.js';
export { fingerprint, matchesRecord, type CallRequest, type HostRequest } from './calls/registry.js';
