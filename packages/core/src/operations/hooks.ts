import { randomBytes } from 'node:crypto';
import { relative } from 'node:path';
import { publicUrl } from '../access/public-url.js';
import { NotFoundError, UsageError } from '../errors.js';
import { parseFilter } from '../hooks/filter.js';
import { parsePayloadPath } from '../hooks/payload-path.js';
import type { Project } from '../project/project.js';
import { checkedName } from '../project/responder.js';
import { resolveWorkflow } from '../project/workflows.js';
import type { Hook } from '../store/hook-store.js';
import type { Store } from '../store/store.js';
import { quoted } from '../text.js';
import { checkEventWord } from './sent-event-rules.js';
import type { HookAddedJson, HookJson } from './shapes.js';

/** What `shop hook add` hands in; exactly one of `workflow` and `event`. */
export interface AddHookRequest {
  name: string;
  workflow?: string;
  event?: string;
  keyFrom?: string;
  promptFrom?: string;
  filter?: string;
  github: boolean;
  /** The secret is read from this variable of shop serve's environment; absent: Shop makes one and keeps it. */
  secretEnv?: string;
  by: string;
}

/** A hook's name is the last part of its URL: 1–64 of A-Z a-z 0-9 _ -, starting with a letter or digit. */
export const HOOK_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

export function checkHookName(name: string): string {
  if (!HOOK_NAME.test(name))
    throw new UsageError(
      `the hook name ${quoted(name, 60)} must be 1-64 of A-Z a-z 0-9 _ - (starting with a letter or digit), e.g. github-issues`,
    );
  return name;
}

/**
 * Records a hook, every part checked first (a bad name, filter or path is one UsageError line;
 * an unknown workflow NotFoundError, as shop run says it; a name taken ConflictError) so nothing
 * is half made. Without --secret-env Shop makes a 32-byte secret, returned this once.
 */
export async function addHook(store: Store, project: Project, req: AddHookRequest): Promise<HookAddedJson> {
  const name = checkHookName(req.name);
  if ((req.workflow === undefined) === (req.event === undefined))
    throw new UsageError(
      'give what a delivery does: --workflow W (start a queued run) or --event E (send an event), one of them',
    );
  if (req.keyFrom !== undefined) parsePayloadPath(req.keyFrom, { anyElement: false });
  if (req.promptFrom !== undefined) {
    if (req.event !== undefined)
      throw new UsageError(
        "--prompt-from goes with --workflow (a run's prompt); an event carries the whole payload as its data",
      );
    parsePayloadPath(req.promptFrom, { anyElement: false });
  }
  if (req.filter !== undefined) parseFilter(req.filter);
  if (req.secretEnv !== undefined && !ENV_NAME.test(req.secretEnv))
    throw new UsageError(
      `--secret-env ${quoted(req.secretEnv, 60)} is not a variable name (letters, digits and _), e.g. GITHUB_HOOK_SECRET`,
    );
  const event = req.event === undefined ? null : checkEventWord(req.event, 'name');
  const workflow = req.workflow === undefined ? null : storedWorkflow(project, req.workflow);
  const secret = req.secretEnv === undefined ? randomBytes(32).toString('hex') : null;
  const hook = await store.addHook({
    name,
    workflow,
    eventName: event,
    keyFrom: req.keyFrom ?? null,
    promptFrom: req.promptFrom ?? null,
    filter: req.filter ?? null,
    github: req.github,
    secretEnv: req.secretEnv ?? null,
    secret,
    createdBy: checkedName(req.by, "the hook's creator"),
  });
  return { hook: hookJson(hook, await publicUrl(store)), secret };
}

/** The workflow as the hook keeps it: its name under workflows/, else its path from the project's root. */
function storedWorkflow(project: Project, given: string): string {
  const wf = resolveWorkflow(project, given);
  const fromRoot = relative(project.root, wf.path);
  return fromRoot === relative(project.root, resolveWorkflowPath(project, wf.spec)) ? wf.spec : fromRoot;
}

function resolveWorkflowPath(project: Project, spec: string): string {
  try {
    return resolveWorkflow(project, spec).path;
  } catch {
    return '';
  }
}

export async function listHooks(store: Store): Promise<HookJson[]> {
  const base = await publicUrl(store);
  return (await store.listHooks()).map((h) => hookJson(h, base));
}

export async function removeHook(store: Store, name: string): Promise<void> {
  if (!(await store.removeHook(name)))
    throw new NotFoundError(`no hook is named ${quoted(name, 60)}; shop hook list shows them`);
}

/** A hook as people see it; its secret never. */
export function hookJson(h: Hook, base: string | null): HookJson {
  return {
    name: h.name,
    workflow: h.workflow,
    event: h.eventName,
    key_from: h.keyFrom,
    prompt_from: h.promptFrom,
    filter: h.filter,
    github: h.github,
    secret: h.secretEnv === null ? 'kept' : 'env',
    secret_env: h.secretEnv,
    url: base === null ? null : `${base}/hooks/${h.name}`,
    created_at: new Date(h.createdAt).toISOString(),
    created_by: h.createdBy,
  };
}
