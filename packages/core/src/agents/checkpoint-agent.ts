import { signalProtocol } from './signal-protocol.js';

/** The built-in `_checkpoint` agent that helps a person review a pause (Shop spec wording). */
export function checkpointInstructions(message: string, decisions: { id: string; prompt: string }[]): string {
  const asks = decisions.length
    ? `\n\n**Decisions the person will make:**\n${decisions.map((d) => `- ${d.id}: ${d.prompt}`).join('\n')}`
    : '';
  return `The workflow has paused for human input.

**Checkpoint:** ${message}${asks}

**What to do:**
1. Review the workspace state
2. Check recent changes and test results
3. Decide whether to continue or stop

When ready, write your recommendation:
- To continue: signal with status "CONTINUE" and a summary of why
- To stop: signal with status "STOP" and provide a reason

Your signal is a recommendation shown to the person; the person gives the decision in Shop.

${signalProtocol()}`;
}
