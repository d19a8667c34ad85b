import { fingerprintAs, matchesAs, type AnyCall, type RequestOf } from './definition.js';
import { callWorkflowCall } from './call-workflow.js';
import { nowCall } from './now.js';
import { parallelCall } from './parallel.js';
import { patchedCall } from './patched.js';
import { pauseCall } from './pause.js';
import { runCall } from './run.js';
import { shCall } from './sh.js';
import { sleepCall } from './sleep.js';
import { sleepUntilCall } from './sleep-until.js';
import { startWorkflowCall } from './start-workflow.js';
import { stuckCall } from './stuck.js';
import { eventUrlCall } from './event-url.js';
import { waitEventCall } from './wait-event.js';
import { waitRunCall } from './wait-run.js';

/** Every host function a workflow calls, as the VM installs them. A new primitive is one line here. */
export const HOST_CALLS = [
  runCall,
  pauseCall,
  shCall,
  nowCall,
  patchedCall,
  parallelCall,
  stuckCall,
  sleepCall,
  sleepUntilCall,
  waitEventCall,
  eventUrlCall,
  callWorkflowCall,
  startWorkflowCall,
  waitRunCall,
] as const;

/** What a workflow asks of the host: one request per call, its `type` the definition's name. */
export type HostRequest = RequestOf<(typeof HOST_CALLS)[number]>;

/** A request that becomes a recorded call (stuck() ends the run instead). */
export type CallRequest = Exclude<HostRequest, { type: 'stuck' }>;

const byName = new Map<string, AnyCall>(HOST_CALLS.map((d) => [d.name, d]));
const byKind = new Map<string, AnyCall>(HOST_CALLS.flatMap((d) => (d.kind ? [[d.kind, d] as const] : [])));

/** The definition of a request's call. */
export function callOf(req: { type: string }): AnyCall {
  return byName.get(req.type)!;
}

/** The definition a recorded execution's kind stands for (undefined for a kind no longer defined). */
export function callOfKind(kind: string): AnyCall | undefined {
  return byKind.get(kind);
}

/** The call as a person reads it in `shop log`. */
export function describeCall(req: CallRequest): string {
  return callOf(req).describe(req);
}

/** The recorded identity of a call, compared on replay. */
export function fingerprint(req: CallRequest): string {
  return fingerprintAs(callOf(req), req);
}

/** Whether a recorded fingerprint stands for this call (definition.ts matchesAs). */
export function matchesRecord(recorded: string, req: CallRequest, current?: string): boolean {
  return matchesAs(callOf(req), recorded, req, current);
}
