import { ConflictError, RunNotFoundError } from '../errors.js';
import { hasEnded, type RunStatus } from '../types.js';
import type { Row } from './rows.js';
import type { SentEvent } from './sent-event-store.js';
import type { EventInput } from './store.js';

/** What both adapters decide alike about sent events, inside their transactions. */

/** A run an event is sent to must exist and go on: an ended one would never take it. */
export function mayReceive(runId: number, run: Row | undefined): void {
  if (!run) throw new RunNotFoundError(runId, `no run ${runId} to send the event to`);
  if (hasEnded({ status: run.status as RunStatus })) {
    throw new ConflictError(
      `run ${runId} has ended (${String(run.status)}${run.reason ? `: ${String(run.reason)}` : ''}); an event sent to it would never be taken`,
    );
  }
}

/** The run's audit line for a take: which event, from whom, how (not its data: that is the event's). */
export function takenAuditEvent(callKey: string, e: SentEvent): EventInput {
  return {
    type: 'event_taken',
    key: callKey,
    actor: e.sentBy,
    channel: 'engine',
    data: {
      event_id: e.id,
      name: e.name,
      event_key: e.key,
      sent_at: new Date(e.sentAt).toISOString(),
      channel: e.channel,
    },
  };
}
