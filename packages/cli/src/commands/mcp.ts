import {
  AGENT_FILE_CAP,
  AWAITING_KINDS,
  CHOICES_MAX,
  CHOICE_MAX_CHARS,
  MCP_SERVER_NAME,
  ShopError,
  UsageError,
} from '@shop/core';
import * as z from 'zod';
import type { Context } from '../context.js';
import type { CommandArgs } from '../registry.js';
import { deliverReport, reportBody, type ReportInput } from '../report-delivery.js';

/** A question is a few lines; the whole signal is held to AGENT_FILE_CAP besides. */
const QUESTION_MAX = 8_000;
const TEXT_MAX = AGENT_FILE_CAP;
const FIELDS_MAX = 100;

const reportShape = {
  status: z
    .string()
    .max(64)
    .describe('UPPER_CASE outcome: DONE, NEEDS_HUMAN, or one the workflow asks for (APPROVED, CHANGES_REQUESTED …)'),
  summary: z.string().max(TEXT_MAX).optional().describe('one line: what you did (the workflow reads it as .summary)'),
  reason: z.string().max(TEXT_MAX).optional().describe('why; for NEEDS_HUMAN, the question for the person'),
  awaiting: z.enum(AWAITING_KINDS).optional().describe('what a NEEDS_HUMAN awaits (default input)'),
  fields: z
    .record(z.string().max(100), z.unknown())
    .refine((f) => Object.keys(f).length <= FIELDS_MAX, `at most ${FIELDS_MAX} fields`)
    .optional()
    .describe('any other details for the workflow, by name'),
};

const askShape = {
  question: z.string().trim().min(1).max(QUESTION_MAX).describe('the question for the person, complete on its own'),
  choices: z
    .array(z.string().trim().min(1).max(CHOICE_MAX_CHARS))
    .max(CHOICES_MAX)
    .optional()
    .describe('the answers the person may pick from (they may also answer in words)'),
};

/** How the tools name a report's parts in a refusal. */
const WORDING = {
  field: (key: string) => `fields.${key}`,
  own: { status: 'status', summary: 'summary', reason: 'reason', awaiting: 'awaiting' },
  needsHuman: 'give reason (the question), or use the ask tool',
  help: "the tool's own argument",
};

/**
 * shop mcp: Shop's MCP server on stdio, started by an agent's CLI in a step Shop started. Two
 * tools, report and ask, for the attempt whose environment it has (SHOP_SIGNAL_FILE …); a report
 * the store refuses (not that attempt's) is an error result and writes nothing. stdout is the
 * protocol's: every line for a person goes to stderr.
 */
export default async function mcp(_args: CommandArgs<'mcp'>, ctx: Context): Promise<number> {
  if (!ctx.env.SHOP_SIGNAL_FILE)
    throw new UsageError(
      "SHOP_SIGNAL_FILE is not set: shop mcp runs inside an agent step (the agent's CLI starts it, as Shop configures it)",
    );
  ctx.out = (line) => process.stderr.write(`${line}\n`);
  const [{ McpServer }, { StdioServerTransport }] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/mcp.js'),
    import('@modelcontextprotocol/sdk/server/stdio.js'),
  ]);
  const server = new McpServer({ name: MCP_SERVER_NAME, version: '1' });
  const deliver = async (body: () => Record<string, unknown>, done: (line: string) => string) => {
    try {
      return { content: [{ type: 'text' as const, text: done(await deliverReport(ctx, body())) }] };
    } catch (e) {
      if (!(e instanceof ShopError)) throw e;
      return { isError: true, content: [{ type: 'text' as const, text: `refused: ${e.message}` }] };
    }
  };
  server.registerTool(
    'report',
    {
      description:
        "Report this step's outcome to Shop, once, when you are done (or NEEDS_HUMAN with reason when only a person can unblock you); then end your turn.",
      inputSchema: reportShape,
    },
    (input: ReportInput) =>
      deliver(
        () => reportBody(input, WORDING),
        (line) => `${line}. End your turn now.`,
      ),
  );
  server.registerTool(
    'ask',
    {
      description:
        'Ask a person a question you cannot go on without (a decision, a credential, missing information), with the answers they may pick. The step waits for them: end your turn after asking; your session resumes with their answer.',
      inputSchema: askShape,
    },
    ({ question, choices }) =>
      deliver(
        () => ({
          ...reportBody({ status: 'NEEDS_HUMAN', reason: question, awaiting: 'input' }, WORDING),
          ...(choices?.length ? { choices } : {}),
        }),
        (line) => `${line}. A person has the question now: end your turn; the answer comes back to this session.`,
      ),
  );
  // A message past the cap closes the connection: no agent's report is that long.
  const transport = new StdioServerTransport(process.stdin, process.stdout, { maxBufferSize: 2 * AGENT_FILE_CAP });
  const closed = new Promise<void>((resolve) => (server.server.onclose = resolve));
  await server.connect(transport);
  await closed;
  return 0;
}
