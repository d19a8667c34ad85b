import { questionsOf, type DeferredTool, type GateDecision } from '../agents/gates.js';
import type { Decision } from '../decisions/decision-spec.js';
import type { Answer } from '../types.js';

/** Statuses that let a deferred call run (`shop signal --status …`); any other denies it. */
const ALLOWING = new Set(['APPROVED', 'CONTINUE', 'DONE', 'ALLOW']);

/**
 * A person's answer as a decision on a deferred tool call. approve: it runs as asked. reject:
 * it is denied, the person's words (or who rejected it) the reason the agent reads. Words
 * (`shop answer … "…"`): for AskUserQuestion, the answer to its question; for a command, the
 * command to run instead; for any other tool, a denial with those words.
 */
export function gateDecision(tool: DeferredTool, a: Answer): GateDecision {
  const base = { tool_use_id: tool.id };
  const words = a.message?.trim() || null;
  const rejected = a.verdict === 'rejected' || (a.status !== null && a.status !== undefined && !ALLOWING.has(a.status));
  if (rejected) return { ...base, decision: 'deny', reason: words ?? `${a.responder} did not allow this call` };
  if (tool.name === 'AskUserQuestion') {
    const questions = questionsOf(tool.input);
    // Each question's choice when the person chose (shop signal --answers, a form), else their words, else its first option.
    const chosen = (i: number): string | null => {
      const v = a.decisions?.[`q${i + 1}`]?.value;
      return Array.isArray(v) ? v.map(String).join(', ') : typeof v === 'string' ? v : null;
    };
    const answers = Object.fromEntries(
      questions.map((q, i) => [q.question, chosen(i) ?? words ?? q.options[0]?.label ?? '']),
    );
    return { ...base, decision: 'allow', updatedInput: { ...tool.input, answers } };
  }
  const approved = a.verdict === 'approved' || (a.status !== null && a.status !== undefined && ALLOWING.has(a.status));
  if (approved || !words) return { ...base, decision: 'allow' };
  if (typeof tool.input.command === 'string')
    return { ...base, decision: 'allow', updatedInput: { ...tool.input, command: words } };
  return { ...base, decision: 'deny', reason: words };
}

/** A tool call's input as the trail keeps it: at most 64 KB of JSON (a Write's whole file is not kept). */
export function boundedInput(input: Record<string, unknown>): Record<string, unknown> {
  const text = JSON.stringify(input);
  if (text.length <= 64 * 1024) return input;
  return { truncated: true, json: text.slice(0, 64 * 1024) };
}

/**
 * AskUserQuestion's questions as the ask's decisions: a choice (a multiple one when it allows
 * several) among its options, one per question, `q1`, `q2`… in order. Words are still an answer
 * (`shop answer … "…"`): a person may answer beyond the options, as in Claude Code's own prompt.
 */
export function questionDecisions(input: Record<string, unknown>): Decision[] {
  return questionsOf(input)
    .filter((q) => q.options.length)
    .map((q, i) => ({
      id: `q${i + 1}`,
      type: q.multiSelect ? 'multi_choice' : 'choice',
      prompt: q.question,
      required: true,
      options: q.options.map((o) => ({ value: o.label, label: o.label, description: o.description })),
    }));
}

/** An agent's question with its own options (Shop's MCP `ask`): one choice, answered by a person's pick or words. */
export function choiceDecision(question: string, choices: readonly string[]): Decision {
  return {
    id: 'choice',
    type: 'choice',
    prompt: question,
    required: true,
    options: [...new Set(choices)].map((c) => ({ value: c, label: c })),
  };
}
