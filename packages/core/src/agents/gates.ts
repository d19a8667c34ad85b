import { capText } from '../text.js';

/**
 * Tool gates: the tool calls of an agent that wait for a person (its front matter's `gates:`,
 * e.g. `Bash(git push --force*)`, `Write(.env*)`, `mcp__*__deploy*`, read by gate-spec.ts and
 * matched by gate-rules.ts), and AskUserQuestion, whose questions are a person's to answer.
 * Claude Code asks Shop's PreToolUse hook (`shop gate`) before each tool call; the hook defers
 * a gated one, the step suspends as an ask, and the person's decision goes back to the same
 * call when the session resumes.
 */

/** The part of a tool call a rule's parentheses match: a command, a file, else the input as JSON. */
export function mainArgument(input: Record<string, unknown>): string {
  for (const k of ['command', 'file_path', 'notebook_path', 'path', 'url', 'pattern', 'query']) {
    const v = input[k];
    if (typeof v === 'string') return v;
  }
  return JSON.stringify(input);
}

/** A tool call the agent's CLI deferred (Claude Code's `deferred_tool_use`). */
export interface DeferredTool {
  id: string;
  name: string;
  input: Record<string, unknown>;
}

/** A person's decision on a deferred call, as the hook hands it back on resume. */
export interface GateDecision {
  tool_use_id: string;
  decision: 'allow' | 'deny';
  reason?: string;
  /** The call's input as the person edited it (a command), or AskUserQuestion's answers. */
  updatedInput?: Record<string, unknown>;
}

/** Claude Code's PreToolUse hook output for a decision (allow, deny with its reason) or a deferral. */
export function hookOutput(
  decision: 'allow' | 'deny' | 'defer',
  extra: { reason?: string; updatedInput?: Record<string, unknown> } = {},
): string {
  return JSON.stringify({
    hookSpecificOutput: {
      hookEventName: 'PreToolUse',
      permissionDecision: decision,
      ...(extra.reason ? { permissionDecisionReason: extra.reason } : {}),
      ...(extra.updatedInput ? { updatedInput: extra.updatedInput } : {}),
    },
  });
}

/** What a person reads of a deferred call: "Bash git push --force origin main", or AskUserQuestion's questions. */
export function describeDeferred(t: Pick<DeferredTool, 'name' | 'input'>): string {
  if (t.name === 'AskUserQuestion')
    return (
      questionsOf(t.input)
        .map((q) => q.question)
        .join(' / ') || 'the agent asks a question'
    );
  return capText(`${t.name} ${mainArgument(t.input)}`, 2000);
}

interface Question {
  question: string;
  options: { label: string; description?: string }[];
  multiSelect: boolean;
}

/** AskUserQuestion's questions, read without trusting their shape. */
export function questionsOf(input: Record<string, unknown>): Question[] {
  const qs = Array.isArray(input.questions) ? input.questions : [];
  return qs.flatMap((q) => {
    const o = q as { question?: unknown; options?: unknown; multiSelect?: unknown };
    if (typeof o.question !== 'string') return [];
    const options = Array.isArray(o.options)
      ? o.options.flatMap((x) =>
          typeof (x as { label?: unknown }).label === 'string'
            ? [
                {
                  label: (x as { label: string }).label,
                  description:
                    typeof (x as { description?: unknown }).description === 'string'
                      ? (x as { description: string }).description
                      : undefined,
                },
              ]
            : [],
        )
      : [];
    return [{ question: o.question, options, multiSelect: o.multiSelect === true }];
  });
}

/** At most this many lines of a change are shown in an ask (the rest is counted). */
const DIFF_LINES = 40;

/**
 * What a gated file change does, for the person deciding it: one hunk, `-` lines gone and `+`
 * lines added, after the lines both keep at its start and end. An Edit's own old and new text;
 * a Write's new content against the file as it is now (`current`, null when there is none).
 */
export function changeOf(t: Pick<DeferredTool, 'name' | 'input'>, current: string | null): string | null {
  const input = t.input;
  if (
    (t.name === 'Edit' || t.name === 'MultiEdit') &&
    typeof input.old_string === 'string' &&
    typeof input.new_string === 'string'
  )
    return hunk(input.old_string, input.new_string);
  if (t.name === 'MultiEdit' && Array.isArray(input.edits)) {
    return (
      input.edits
        .flatMap((e) => {
          const o = e as { old_string?: unknown; new_string?: unknown };
          return typeof o.old_string === 'string' && typeof o.new_string === 'string'
            ? [hunk(o.old_string, o.new_string)]
            : [];
        })
        .join('\n…\n') || null
    );
  }
  if (t.name === 'Write' && typeof input.content === 'string') return hunk(current, input.content);
  return null;
}

/** `before` null: a new file, every line added. */
function hunk(before: string | null, after: string): string {
  const a = before === null ? [] : before.split('\n');
  const b = after.split('\n');
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let end = 0;
  while (end < a.length - start && end < b.length - start && a[a.length - 1 - end] === b[b.length - 1 - end]) end++;
  const lines = [
    ...a.slice(start, a.length - end).map((l) => `- ${l}`),
    ...b.slice(start, b.length - end).map((l) => `+ ${l}`),
  ];
  if (!lines.length) return '(no change)';
  const shown = lines.slice(0, DIFF_LINES).map((l) => capText(l, 200));
  if (lines.length > DIFF_LINES) shown.push(`… ${lines.length - DIFF_LINES} more changed lines`);
  return shown.join('\n');
}
