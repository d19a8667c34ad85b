import { buildAnswer } from '../decisions/build-answer.js';
import { ConflictError, ShopError } from '../errors.js';
import { notifyTargets, type AutoApproveRule, type WorkflowConfig } from '../lua/workflow-config.js';
import type { Execution, Run } from '../types.js';
import { sendAskNotice } from './ask-notice.js';
import type { EnginePorts } from './ports.js';

/** The auto_approve rule an ask matches: every field the rule gives must hold. */
function matchingRule(rules: AutoApproveRule[], exec: Execution): AutoApproveRule | null {
  return (
    rules.find(
      (r) =>
        (r.awaiting === undefined || r.awaiting === (exec.awaiting ?? 'input')) &&
        (r.agent === undefined || r.agent === exec.agent) &&
        (r.pause === undefined || (exec.kind === 'pause' && r.pause === exec.waitingFor)) &&
        (r.call === undefined || r.call === exec.key),
    ) ?? null
  );
}

/**
 * A new ask: approved at once when an auto_approve rule matches (recorded as answered by
 * system:policy, with the rule), otherwise the notify targets are told. Returns whether it
 * was answered.
 */
export async function openAsk(ports: EnginePorts, run: Run, config: WorkflowConfig, exec: Execution): Promise<boolean> {
  const rule = matchingRule(config.auto_approve ?? [], exec);
  if (rule) {
    try {
      const fields = buildAnswer(exec, { verdict: 'approved', message: `auto_approve ${JSON.stringify(rule)}` });
      await ports.store.recordAnswer({
        runId: run.id,
        key: exec.key,
        ask: exec.ask,
        ...fields,
        responder: 'system:policy',
        channel: 'engine',
      });
      return true;
    } catch (e) {
      if (e instanceof ConflictError) return true; // answered meanwhile by someone else
      if (!(e instanceof ShopError)) throw e;
      // Approving cannot answer this ask (a decision without a default…): a person must.
      await ports.store.appendEvent(null, run.id, {
        type: 'auto_approve_skipped',
        key: exec.key,
        actor: 'system:policy',
        channel: 'engine',
        data: { rule, why: e.message },
      });
    }
  }
  await sendAskNotice(ports, notifyTargets(config), 'waiting', run, exec, ports.clock.now());
  return false;
}
