import { z } from 'zod';

/**
 * What a workflow asks of the host. Each effectful host function yields one of these; the
 * scheduler fulfils it under the next call key and resumes the thread with the result.
 */
export const RunOptionsSchema = z.strictObject({
  prompt: z.string().optional(),
  model: z.string().optional(),
  human: z.boolean().optional(),
  timeout: z.number().positive().optional(),
  statuses: z.array(z.string()).optional(),
});
export type RunOptions = z.infer<typeof RunOptionsSchema>;

export { PauseSpecSchema, type PauseSpec } from '../decisions/decision-spec.js';
import type { PauseSpec } from '../decisions/decision-spec.js';

export const WorkflowConfigSchema = z.strictObject({
  human_escalation: z.boolean().optional(),
  human_timeout: z.number().positive().optional(),
  on_timeout: z.enum(['stuck', 'notify_again', 'default']).optional(),
  notify: z.record(z.string(), z.unknown()).optional(),
  max_parallel: z.number().int().positive().optional(),
});
export type WorkflowConfig = z.infer<typeof WorkflowConfigSchema>;

export type HostRequest =
  | { type: 'run'; agent: string; prompt: string | null; opts: RunOptions }
  | { type: 'pause'; spec: PauseSpec }
  | { type: 'stuck'; reason: string }
  | { type: 'sh'; cmd: string }
  | { type: 'now' };

/** The recorded identity of a call: replay compares it to detect a changed workflow. */
export function fingerprint(req: Exclude<HostRequest, { type: 'stuck' }>): string {
  switch (req.type) {
    case 'run':
      return `run("${req.agent}")`;
    case 'pause':
      return `pause("${req.spec.message}")`;
    case 'sh':
      return `sh("${req.cmd}")`;
    case 'now':
      return 'now()';
  }
}

/** Formats zod issues as one line: "key: problem; key: problem". */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((i) => {
      const path = i.path.join('.');
      if (i.code === 'unrecognized_keys') return `${path ? `${path}: ` : ''}unknown key ${i.keys.map((k) => `'${k}'`).join(', ')}`;
      return path ? `${path}: ${i.message}` : i.message;
    })
    .join('; ');
}
