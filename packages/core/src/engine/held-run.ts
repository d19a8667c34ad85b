import { ConflictError, ShopError } from '../errors.js';
import { agentRules, lookDiff, noRules } from '../rules/agent-rules.js';
import { heldReason, heldRefusal } from '../rules/hold-lines.js';
import type { Channel, Run, RunHold, RunRules } from '../types.js';
import type { DriveOutcome } from './outcome.js';
import type { EnginePorts } from './ports.js';

/** A person taking the rule files as they are now (shop resume --accept-changes). */
export interface AcceptChanges {
  by: string;
  channel: Channel;
}

/**
 * The rules a run starts with: every agent the project defines now (a definition that does not
 * read is left for its first use, where its step says what is wrong) and the rule files' hashes.
 * The workflow's config{} follows when the file first loads.
 */
export function startingRules(ports: EnginePorts, workflowPath: string): RunRules {
  const rules = noRules();
  const files = ports.ruleFiles;
  if (!files) return rules;
  rules.files = Object.fromEntries(files.look(workflowPath));
  for (const name of files.agentNames()) {
    try {
      const def = ports.loadAgent(name);
      rules.agents[name] = agentRules(def, files.shown(def.file));
    } catch (e) {
      if (!(e instanceof ShopError)) throw e;
    }
  }
  return rules;
}

/**
 * Before a run is driven again (its driver holds it). A person accepting the files takes their
 * rules from now on. A held run goes on only when its files are back as they were before the
 * step (the hold ends), else ConflictError naming them. A step left running by a driver that
 * stopped (killed, Ctrl-C) was never looked after: rule files changed since the run last saw
 * them hold the run now. Returns the outcome when it was held here, else null (drive on).
 */
export async function settleHold(
  ports: EnginePorts,
  token: string,
  run: Run,
  accept?: AcceptChanges,
): Promise<DriveOutcome | null> {
  const { store } = ports;
  if (accept) {
    const rules = startingRules(ports, run.workflowPath);
    await store.setRunRules(token, run.id, {
      rules,
      clearHeld: true,
      events: [
        {
          type: 'changes_accepted',
          key: run.held?.key ?? null,
          actor: accept.by,
          channel: accept.channel,
          data: { files: run.held?.files.map((f) => f.path) ?? [], differs: run.rules?.differs ?? [] },
        },
      ],
    });
    return null;
  }
  const files = ports.ruleFiles;
  if (run.held) {
    const look = files?.look(run.workflowPath);
    const still = run.held.files.filter((f) => !look || (look.get(f.path) ?? null) !== f.before);
    if (still.length) throw new ConflictError(heldRefusal(run.id, run.held, still));
    await store.setRunRules(token, run.id, {
      clearHeld: true,
      events: [
        {
          type: 'hold_cleared',
          key: run.held.key,
          actor: 'shop',
          channel: 'engine',
          data: { why: 'restored', files: run.held.files.map((f) => f.path) },
        },
      ],
    });
    return null;
  }
  if (!files || !run.rules || !Object.keys(run.rules.files).length) return null;
  const step = (await store.openExecutions(run.id)).find(
    (e) => e.status === 'running' && (e.kind === 'run' || e.kind === 'sh'),
  );
  if (!step) return null;
  const changed = lookDiff(new Map(Object.entries(run.rules.files)), files.look(run.workflowPath));
  if (!changed.length) return null;
  const held: RunHold = {
    key: step.key,
    agent: step.kind === 'run' ? step.agent : null,
    files: changed,
    interrupted: true,
    at: ports.clock.now(),
  };
  const reason = heldReason(run.id, held);
  await store.finishRun(token, run.id, {
    status: 'failed',
    reason,
    held,
    event: { type: 'failed', key: step.key, actor: 'shop', channel: 'engine', data: { reason } },
  });
  return { status: 'failed', reason, exitCode: 1 };
}
