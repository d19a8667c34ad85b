/**
 * The instructions Shop appends to every agent's system prompt. The signal file's path is not
 * in them: the system prompt is on the agent's command line, which any process can read (ps),
 * and the path is the agent's alone (it has it in SHOP_SIGNAL_FILE, which shop report uses).
 */
export function signalProtocol(): string {
  return `## Reporting back to Shop
You are one step of a Shop workflow. When you finish, report your outcome exactly once with the
\`report\` tool of the MCP server \`shop\` (status, summary; reason, awaiting, fields as needed), e.g.
status DONE with a one-line summary of what you did. If you cannot continue without a person (a
decision, a credential, missing information), call its \`ask\` tool with the question and, when
there are a few possible answers, the choices; then end your turn: the answer comes back to you.

Without that tool, run this in your shell (it writes the file SHOP_SIGNAL_FILE names):

  shop report DONE --summary "<one line: what you did>"
  shop report NEEDS_HUMAN --reason "<the question for the person>" [--awaiting input|approval|review|content|escalation|checkpoint|work]

The workflow may ask for other statuses (UPPER_CASE words such as APPROVED or
CHANGES_REQUESTED); use them the same way. Add details as fields (--field key=value).
If you can do neither, end your final message with <promise>STATUS: text</promise>.
Ending without a report makes the step fail.`;
}
