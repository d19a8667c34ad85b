import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import { AWAITING_KINDS } from '../signals/signal.js';
import { checkTarget } from '../notify/check-target.js';
import { describeIssues } from './issues.js';
import { GatesSchema } from '../agents/gates-schema.js';

/** Lua turns an empty table into {} and a one-word list may come as a string: read both as lists. */
const list = (v: unknown) =>
  typeof v === 'string' ? [v] : v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0 ? [] : v;
const Seconds = lazySchema(() => z.number().positive());
const Targets = lazySchema(() => z.preprocess(list, z.array(z.string().min(1))));

/** One auto_approve rule: every field it gives must match the ask. */
const AutoApproveRuleSchema = lazySchema(() =>
  z
    .strictObject({
      awaiting: z.enum(AWAITING_KINDS).optional(),
      agent: z.string().min(1).optional(),
      pause: z.string().min(1).optional(),
      call: z.string().min(1).optional(),
    })
    .refine((r) => Object.keys(r).length > 0, { message: 'a rule needs at least one of awaiting, agent, pause, call' }),
);
export type AutoApproveRule = z.infer<typeof AutoApproveRuleSchema>;

const ON_TIMEOUT = ['stuck', 'notify_again', 'default'] as const;

const WorkflowConfigSchema = lazySchema(() =>
  z
    .strictObject({
      human_escalation: z.boolean().optional(),
      max_parallel: z.number().int().positive().optional(),
      /** Runs of this workflow driven at once (of one --key apart); the rest wait in the queue. */
      concurrency: z.number().int().min(1).max(10_000).optional(),
      lua_timeout: Seconds.optional(),
      /** MiB of string the Lua string functions may make at once; values handed to Shop are capped apart. */
      lua_memory_mb: z.number().int().min(1).max(4096).optional(),
      /** Seconds an ask may wait before on_timeout applies. */
      human_timeout: Seconds.optional(),
      on_timeout: z.enum(ON_TIMEOUT).optional(),
      /** Seconds until a reminder to the notify targets; escalate_after: until escalate_to is told. */
      remind_after: Seconds.optional(),
      escalate_after: Seconds.optional(),
      escalate_to: Targets.optional(),
      /** Seconds a claim on an ask ("I'm on it") lasts before it ages out and reminders go on (default 3600). */
      claim_timeout: Seconds.optional(),
      notify: Targets.optional(),
      /** The reference's name for notify. */
      notify_on_waiting: Targets.optional(),
      auto_approve: z.preprocess(list, z.array(AutoApproveRuleSchema)).optional(),
      budget_usd: z.number().positive().optional(),
      /** Attempts after the first when an agent fails transiently (default 3); run(…, {retries}) overrides it per call. */
      retries: z.number().int().min(0).max(10).optional(),
      /** Keep a --worktree run's worktree when the run ends (by default it is removed when clean). */
      keep_worktree: z.boolean().optional(),
      /** Tool calls that wait for a person in every Claude Code agent of the run, besides each agent's own gates: (read into blocks). */
      gates: GatesSchema.optional(),
    })
    .superRefine((c, ctx) => {
      if (c.escalate_after !== undefined && !c.escalate_to?.length)
        ctx.addIssue({
          code: 'custom',
          path: ['escalate_to'],
          message: 'escalate_after needs escalate_to (who is told)',
        });
    }),
);
export type WorkflowConfig = z.infer<typeof WorkflowConfigSchema>;

const configKeys = () => Object.keys(WorkflowConfigSchema.shape).join(', ');

/** config{…}'s table checked — notifiers too: the keys it set, or the error to raise in Lua. */
export function parseConfig(table: unknown): WorkflowConfig | string {
  // No keys set (a workflow without config{}: every run checks its recorded one) is no keys set,
  // without building the schema (~8 ms of a command's start-up).
  if (table == null || (isPlainObject(table) && Object.keys(table).length === 0)) return {};
  const parsed = WorkflowConfigSchema.safeParse(table);
  if (!parsed.success) return `config: ${describeIssues(parsed.error)} (known: ${configKeys()})`;
  const c = parsed.data;
  for (const entry of [...(c.notify ?? []), ...(c.notify_on_waiting ?? []), ...(c.escalate_to ?? [])]) {
    const problem = checkTarget(entry);
    if (problem) return `config: ${problem}`;
  }
  return c;
}

/** Everyone to tell when an ask opens: notify and its alias together. */
export const notifyTargets = (c: WorkflowConfig): string[] => [...(c.notify ?? []), ...(c.notify_on_waiting ?? [])];

const isPlainObject = (v: unknown): v is object =>
  typeof v === 'object' && v !== null && Object.getPrototypeOf(v) === Object.prototype;
