import type { RunHold } from '../types.js';
import type { EventInput } from './store.js';

/**
 * The audit event of a run held because a rule file changed during its step (both stores
 * write it with the hold and the run's end, in one transaction): the step, its agent, and
 * each file with its content hash before and after (null: absent).
 */
export function filesChangedEvent(held: RunHold): EventInput {
  return {
    type: 'files_changed',
    key: held.key,
    actor: 'shop',
    channel: 'engine',
    data: { key: held.key, agent: held.agent, files: held.files },
  };
}
