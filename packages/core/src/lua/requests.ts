/**
 * What a workflow asks of the host. Each effectful host function yields one of these; the
 * scheduler fulfils it under the thread's next call key and resumes the thread with the
 * result. Each call is defined in calls/ (one file per primitive) and listed in calls/registry.ts.
 */

export { RunOptionsSchema, type RunOptions, type RunRequest } from './calls/run.js';
export { ShOptionsSchema, type ShOptions, type ShRequest } from './calls/sh.js';
export { PauseSpecSchema, type PauseSpec } from '../decisions/decision-spec.js';
export { parseConfig, WorkflowConfigSchema, type WorkflowConfig } from './workflow-config.js';
export { describeCall, fingerprint, matchesRecord, type CallRequest, type HostRequest } from './calls/registry.js';
export { describeIssues } from './issues.js';
