/**
 * Everything the operations import only on first use: driving, starting, stopping, answering,
 * replaying, sessions, the worker (the Lua VM, agents) and the web's signed tokens (zod). One
 * module, so the bundle has one lazy entry (few chunks to read) instead of one per operation.
 */
export { driveRun } from '../engine/drive-run.js';
export { Worker } from '../worker/worker.js';
export { dryReplay } from './dry-replay.js';
export { openReview, openSession } from './open-session.js';
export { startRun } from './start-run.js';
export { queueRun } from './queue-run.js';
export { stopRun } from './stop-run.js';
export { resumeRuns, stopRuns } from './bulk-runs.js';
export { verifyAnswerLink } from '../access/answer-link.js';
export { answerUrl, publicUrl, setPublicUrl } from '../access/public-url.js';
export { endWebSession, openWebSession, webSession } from '../access/session.js';
