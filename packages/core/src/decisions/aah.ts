import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import { UsageError } from '../errors.js';
import { describeIssues } from '../lua/issues.js';
import type { Execution, Run } from '../types.js';
import { callDecisions, requestId } from './call-decisions.js';
import { pauseDeadline, type PauseSpec } from './decision-spec.js';

/** AAH-HITL-001 artifacts: a pending ask as a decision/request, and decision/response files in. */

export function aahRequest(run: Run, exec: Execution) {
  const spec = exec.kind === 'pause' ? (exec.request as PauseSpec | null) : null;
  const deadline = pauseDeadline(spec, exec.startedAt);
  const due = deadline === null ? undefined : new Date(deadline).toISOString();
  return {
    aah_version: '0.1',
    artifact: {
      id: requestId(exec),
      type: 'decision/request',
      title: exec.waitingFor ?? '',
      created_at: new Date(exec.updatedAt).toISOString(),
    },
    source: { agent_id: exec.agent ?? '_checkpoint', task_id: `shop-run-${run.id}` },
    content: {
      media_type: 'application/vnd.aah.decision-request+json',
      body: {
        schema: 'aah:decision/request@1.0',
        data: {
          context: spec?.context ?? `${run.spec}: ${run.prompt}`.trim(),
          decisions: callDecisions(exec),
          blocking: [
            { task_id: `shop-run-${run.id}`, description: `run ${run.id} (${run.spec}) waits on call ${exec.key}` },
          ],
          ...(due ? { deadline: due } : {}),
        },
      },
    },
    handoff: { target_role: 'human', expects_response: true, ...(due ? { response_deadline: due } : {}) },
    lifecycle: { status: 'pending', visibility: 'team' },
  };
}

const ResponseData = lazySchema(() =>
  z.object({
    request_id: z.string().optional(),
    responses: z.array(
      z.looseObject({
        decision_id: z.string(),
        approved: z.boolean().optional(),
        selected: z.union([z.string(), z.array(z.string())]).optional(),
        value: z.unknown().optional(),
        comment: z.string().nullable().optional(),
      }),
    ),
    overall_status: z.string().optional(),
    summary: z.string().optional(),
  }),
);

export interface ParsedResponse {
  answers: Record<string, { value: unknown; comment: string | null }>;
  responder: string | null;
  summary: string | null;
}

/** A decision/response artifact's data (the artifact, its body, or its data alone). */
const responseData = (json: unknown): unknown =>
  field(field(field(json, 'content'), 'body'), 'data') ??
  field(field(json, 'body'), 'data') ??
  field(json, 'data') ??
  json;

/** `v[key]` when `v` is an object: a file read back is walked, not trusted to have a shape. */
const field = (v: unknown, key: string): unknown =>
  typeof v === 'object' && v !== null ? (v as Record<string, unknown>)[key] : undefined;

/** The ask a response names (its request_id), if it names one. */
export function responseRequestId(json: unknown): string | null {
  const id = field(responseData(json), 'request_id');
  return typeof id === 'string' ? id : null;
}

/** Reads a decision/response artifact (or its body / data alone) into answers keyed by decision id. */
export function parseAahResponse(json: unknown, exec: Execution): ParsedResponse {
  const data = responseData(json);
  const parsed = ResponseData.safeParse(data);
  if (!parsed.success) throw new UsageError(`not an AAH decision/response: ${describeIssues(parsed.error)}`);
  const { request_id, responses, summary } = parsed.data;
  if (request_id && request_id !== requestId(exec)) {
    throw new UsageError(
      `the response answers ${request_id}, but the run waits on ${requestId(exec)} (see shop status ${exec.runId} --aah)`,
    );
  }
  const answers = Object.fromEntries(
    responses.map((r) => [
      r.decision_id,
      { value: r.approved ?? r.selected ?? r.value ?? null, comment: r.comment ?? null },
    ]),
  );
  const source = field(json, 'source') as { agent_name?: string; agent_id?: string } | undefined;
  const responder = source?.agent_name ?? source?.agent_id?.replace(/^human:/, '') ?? null;
  return { answers, responder, summary: summary ?? null };
}
