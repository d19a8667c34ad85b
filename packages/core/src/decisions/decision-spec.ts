import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import { DECISION_TYPES, valueSchema } from './decision-value.js';

/** Lua turns an empty table into {}; where a list is expected, read it as []. */
const luaList = (v: unknown) =>
  v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0 ? [] : v;

const OptionSchema = lazySchema(() =>
  z.union([
    z.string().transform((value) => ({ value, label: value, description: undefined as string | undefined })),
    z
      .strictObject({ value: z.string(), label: z.string().optional(), description: z.string().optional() })
      .transform((o) => ({ ...o, label: o.label ?? o.value })),
  ]),
);

export const DecisionSchema = lazySchema(() =>
  z
    .strictObject({
      id: z.string().regex(/^[A-Za-z_][\w-]*$/, 'must be a word (letters, digits, _ or -)'),
      type: z.enum(DECISION_TYPES),
      prompt: z.string().min(1),
      description: z.string().optional(),
      required: z.boolean().default(true),
      default: z.unknown().optional(),
      options: z.preprocess(luaList, z.array(OptionSchema)).optional(),
      constraints: z
        .strictObject({ min: z.number().optional(), max: z.number().optional(), pattern: z.string().optional() })
        .optional(),
    })
    .superRefine((d, ctx) => {
      if ((d.type === 'choice' || d.type === 'multi_choice') && !d.options?.length) {
        ctx.addIssue({ code: 'custom', path: ['options'], message: `a ${d.type} decision needs options` });
      }
      if (d.constraints?.pattern !== undefined) {
        try {
          new RegExp(d.constraints.pattern);
        } catch {
          ctx.addIssue({
            code: 'custom',
            path: ['constraints', 'pattern'],
            message: 'is not a valid regular expression',
          });
          return;
        }
      }
      // A default that breaks its own rules would only surface when someone approves: refuse it now.
      if (d.default !== undefined && d.default !== null) {
        const checked = valueSchema(d).safeParse(d.type === 'multi_choice' ? luaList(d.default) : d.default);
        if (!checked.success)
          ctx.addIssue({ code: 'custom', path: ['default'], message: checked.error.issues[0].message });
      }
    })
    .transform((d) =>
      d.type === 'multi_choice' && d.default !== undefined ? { ...d, default: luaList(d.default) } : d,
    ),
);
export type Decision = z.infer<typeof DecisionSchema>;

/** A decision list may arrive from Lua as {} too. */
const DecisionList = lazySchema(() =>
  z.preprocess(luaList, z.array(DecisionSchema)).superRefine((list, ctx) => {
    const seen = new Set<string>();
    list.forEach((d, i) => {
      if (seen.has(d.id)) ctx.addIssue({ code: 'custom', path: [i, 'id'], message: `duplicate decision id '${d.id}'` });
      seen.add(d.id);
    });
  }),
);

export const PauseSpecSchema = lazySchema(() =>
  z.strictObject({
    message: z.string().min(1),
    context: z.string().optional(),
    decisions: DecisionList.optional(),
    /** When it must be answered: an ISO 8601 time, or seconds from when the pause starts. */
    deadline: z
      .union([
        z
          .string()
          .refine(
            (s) => !Number.isNaN(Date.parse(s)),
            'must be an ISO 8601 time such as 2026-02-17T17:00:00Z, or a number of seconds',
          ),
        z.number().positive(),
      ])
      .optional(),
    /** What its deadline does (else config's on_timeout, else stuck). */
    on_timeout: z.enum(['stuck', 'notify_again', 'default']).optional(),
  }),
);
export type PauseSpec = z.infer<typeof PauseSpecSchema>;

/** A pause's deadline as epoch ms: an ISO time as given, seconds counted from when it started. */
export function pauseDeadline(spec: Pick<PauseSpec, 'deadline'> | null, startedAt: number): number | null {
  if (spec?.deadline === undefined) return null;
  return typeof spec.deadline === 'number' ? startedAt + spec.deadline * 1000 : Date.parse(spec.deadline);
}
