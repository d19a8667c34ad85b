import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import { AWAITING_KINDS } from '../signals/signal.js';

/** One scripted agent turn: what it reports, how long it takes, which files it writes. */
const AgentStep = lazySchema(() =>
  z.strictObject({
    status: z
      .string()
      .regex(/^[A-Z][A-Z0-9_]*$/, 'must be an UPPER_CASE status such as DONE or NEEDS_HUMAN')
      .default('DONE'),
    summary: z.string().optional(),
    reason: z.string().optional(),
    awaiting: z.enum(AWAITING_KINDS).optional(),
    fields: z.record(z.string(), z.unknown()).optional(),
    delay_ms: z.number().int().nonnegative().optional(),
    /** Files the agent writes in the workspace: path (relative) → content. */
    files: z.record(z.string(), z.string()).optional(),
    cost_usd: z.number().nonnegative().optional(),
  }),
);

const Verdict = lazySchema(() => z.enum(['approve', 'reject', 'answer']));
/** A verdict, or a distribution to sample one from: {"approve": 0.8, "reject": 0.2}. */
const VerdictOrMix = lazySchema(() =>
  z.union([
    Verdict,
    z
      .partialRecord(Verdict, z.number().nonnegative())
      .refine((m) => Object.values(m).some((w) => (w ?? 0) > 0), 'give at least one verdict a weight above 0'),
  ]),
);

/** One scripted answer of a person: to a call key, a pause's message, or any ask ("*"). */
const Human = lazySchema(() =>
  z
    .strictObject({
      call: z.string().optional(),
      pause: z.string().optional(),
      ask: z.literal('*').optional(),
      verdict: VerdictOrMix.optional(),
      /** shop signal --status. */
      status: z.string().optional(),
      message: z.string().optional(),
      /** A structured pause's answers by decision id. */
      answers: z.record(z.string(), z.unknown()).optional(),
      by: z.string().optional(),
    })
    .refine(
      (h) => [h.call, h.pause, h.ask].filter((x) => x !== undefined).length === 1,
      'give exactly one of call, pause, ask',
    )
    .refine(
      (h) => [h.verdict, h.status, h.answers].filter((x) => x !== undefined).length === 1,
      'give exactly one of verdict, status, answers',
    ),
);
export type FixtureHuman = z.infer<typeof Human>;

const Ending = lazySchema(() => z.enum(['completed', 'stuck', 'failed', 'waiting_human']));

const FixtureSchema = lazySchema(() =>
  z.strictObject({
    prompt: z.string().default(''),
    /** Seeds math.random and the sampled verdicts, so a run is the same every time. */
    seed: z.number().int().nonnegative().default(1),
    agents: z.record(z.string(), z.array(AgentStep).min(1)).default({}),
    humans: z.array(Human).default([]),
    /** What sh() commands print (by command text); any other command gives code 0 and no output. */
    shell: z
      .record(
        z.string(),
        z.strictObject({
          code: z.number().int().default(0),
          stdout: z.string().default(''),
          stderr: z.string().default(''),
        }),
      )
      .default({}),
    expect: z
      .strictObject({
        /** Unless said otherwise, a run is expected to complete; a list allows several (for --runs). */
        status: z
          .union([Ending, z.array(Ending).min(1)], {
            error: `must be one of ${Ending.options.join(', ')}, or a list of them`,
          })
          .default('completed'),
        result: z.unknown().optional(),
        reason: z.string().optional(),
        /** The calls in order: agent names, `_checkpoint` for a pause, `sh`, `now`, `parallel`, `patch`. */
        calls: z.array(z.string()).optional(),
      })
      .prefault({}),
  }),
);
export type Fixture = z.infer<typeof FixtureSchema>;

/** Checks a fixture: the value, or every problem as "path: message". */
export function parseFixture(raw: unknown): { fixture: Fixture } | { errors: string[] } {
  const parsed = FixtureSchema.safeParse(raw);
  if (parsed.success) return { fixture: parsed.data };
  return {
    errors: parsed.error.issues.map(
      (i) =>
        `${i.path.length ? i.path.join('.') : '(top)'}: ${i.code === 'unrecognized_keys' ? `unknown key ${i.keys.map((k) => `'${k}'`).join(', ')}` : i.message}`,
    ),
  };
}
