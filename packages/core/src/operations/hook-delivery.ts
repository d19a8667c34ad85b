import type { EnginePorts } from '../engine/ports.js';
import { NotFoundError, UsageError } from '../errors.js';
import { deliveryId, eventName } from '../hooks/delivery.js';
import { matchesFilter } from '../hooks/filter-match.js';
import { parseFilter } from '../hooks/filter.js';
import type { HookHeaders } from '../hooks/hook-headers.js';
import { MAX_PAYLOAD_KEY_CHARS, valueAt } from '../hooks/payload-path.js';
import { verifySignature } from '../hooks/signature.js';
import type { Project } from '../project/project.js';
import { wakeForEvent, wakeForQueued } from '../signals/wake.js';
import type { DeliveryAction, Hook } from '../store/hook-store.js';
import { HOOK_NAME } from './hooks.js';
import { queuedRunInput } from './queue-run.js';
import { sentEventInput } from './send-event.js';
import type { HookDeliveredJson } from './shapes.js';

/** A request to POST /hooks/<name>, as the server hands it over (the body read only once the hook is known). */
export interface HookRequest {
  name: string;
  headers: HookHeaders;
  /** The body as JSON (`payload` is the whole body) or as GitHub's form (`payload=<JSON>`). */
  form: boolean;
  /** Reads the raw body (the server caps it: 413 past its bound, nothing recorded). */
  readBody(): Promise<Buffer>;
  /** shop serve's environment, for a hook whose secret is in a variable (--secret-env). */
  env: Readonly<Record<string, string | undefined>>;
}

/** Refused before anything is recorded: the signature (401), or a secret variable shop serve lacks (503). */
export type HookRefusal = { refused: 'signature' | 'no-secret'; message: string };

/**
 * One delivery: the hook looked up (NotFoundError: 404), the body read, its signature checked
 * on the raw bytes (refused: nothing recorded), the payload parsed (UsageError: 400), judged by
 * the filter, then recorded with what it does in one store transaction — a queued run (trigger
 * `webhook`, its data the payload) or an event — or as `filtered`. A delivery id seen before is
 * a duplicate: nothing new. The run's worker, or the waiting runs, are woken after.
 */
export async function receiveHook(
  ports: EnginePorts,
  project: Project,
  req: HookRequest,
): Promise<HookDeliveredJson | HookRefusal> {
  const hook = HOOK_NAME.test(req.name) ? await ports.store.getHook(req.name) : null;
  if (!hook) throw new NotFoundError('no hook of that name here; shop hook list shows them');
  const rawBody = await req.readBody();
  const secret = hook.secret ?? req.env[hook.secretEnv ?? ''] ?? '';
  if (secret === '')
    return {
      refused: 'no-secret',
      message: `the hook's secret variable ${hook.secretEnv} is not set where shop serve runs`,
    };
  // A GitHub hook is signed as GitHub signs: X-Hub-Signature-256.
  const headers = hook.github
    ? Object.fromEntries(Object.entries(req.headers).filter(([k]) => k.toLowerCase() !== 'x-shop-signature-256'))
    : req.headers;
  const check = verifySignature({ secret, rawBody, headers });
  if (!check.ok) return { refused: 'signature', message: check.message };
  const { id } = deliveryId(req.headers, rawBody);
  const event = eventName(req.headers);
  const payload = parsePayload(rawBody, req.form);
  const pass = hook.filter === null || matchesFilter(parseFilter(hook.filter), { event, payload });
  const action: DeliveryAction = pass ? deliveryAction(ports, project, hook, payload) : { kind: 'filtered' };
  const done = await ports.store.recordDelivery({ hook: hook.name, delivery: id, action });
  const json = { hook: hook.name, delivery: id, duplicate: done.duplicate, run: null, event: null, woke: [] };
  if (done.duplicate) return { ...json, outcome: done.outcome, run: done.runId };
  if (done.outcome === 'run') {
    wakeForQueued(ports.paths.signalsDir, done.run.id);
    return { ...json, outcome: 'run', run: done.run.id };
  }
  if (done.outcome === 'event') {
    const { event: sent, waiting } = done.sent;
    for (const runId of waiting) wakeForEvent(ports.paths.signalsDir, runId, sent.id);
    return { ...json, outcome: 'event', event: sent.id, woke: waiting };
  }
  return { ...json, outcome: 'filtered' };
}

/** The payload: the JSON body, or the JSON in GitHub's form field `payload`; UsageError when it is not JSON. */
function parsePayload(rawBody: Buffer, form: boolean): unknown {
  const text = form ? new URLSearchParams(rawBody.toString('utf8')).get('payload') : rawBody.toString('utf8');
  if (text === null) throw new UsageError('the form has no payload field; send the body as application/json');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new UsageError('the body is not JSON; send one JSON document as application/json');
  }
}

/** What a delivery that passes the filter does, checked (bad key: UsageError) but not yet recorded. */
function deliveryAction(ports: EnginePorts, project: Project, hook: Hook, payload: unknown): DeliveryAction {
  const key = hook.keyFrom === null ? null : (valueAt(payload, hook.keyFrom, MAX_PAYLOAD_KEY_CHARS) ?? null);
  const by = `hook:${hook.name}`;
  if (hook.eventName !== null)
    return {
      kind: 'event',
      event: sentEventInput({
        name: hook.eventName,
        key: key === null ? null : eventKeyOf(key),
        data: payload,
        dataFrom: 'the payload',
        sentBy: by,
        channel: 'api',
      }),
    };
  return {
    kind: 'run',
    run: queuedRunInput(ports, project, {
      workflow: hook.workflow!,
      prompt: hook.promptFrom === null ? '' : (valueAt(payload, hook.promptFrom) ?? ''),
      key,
      trigger: { kind: 'webhook', name: hook.name, by: null, data: payload },
      actor: by,
    }),
  };
}

/**
 * An event key read from a payload: event keys are words of A-Z a-z 0-9 _ . : -, so each `/`
 * becomes `:` (`octo-org/hello-world` → `octo-org:hello-world`; GitHub's owner and repository
 * names hold no `:`, so no two become one). Anything else outside the set is refused by the
 * event's own check (400, nothing recorded).
 */
export const eventKeyOf = (value: string): string => value.replaceAll('/', ':');
