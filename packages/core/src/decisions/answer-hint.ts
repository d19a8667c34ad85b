import type { Execution } from '../types.js';
import { handleOf } from './ask-handle.js';
import { VERDICT_MATRIX, type Awaiting, type VerdictEffect } from './verdicts.js';

/**
 * One way to answer a waiting ask, as data: each front end renders it (CLI lines, --json
 * `answer_with`, notifier text, the TUI, a web page). Every suggestion carries the ask's
 * handle, so the command it becomes answers exactly the ask it was shown for.
 */
export interface AnswerSuggestion {
  verb: 'continue' | 'answer' | 'approve' | 'reject' | 'signal';
  /** The ask it answers: "33.4", "33.4.2", "33.4/1/2". */
  handle: string;
  /** What it is for, as a person reads it: "talk to the agent", "approve", "stop it". */
  label: string;
  /** Whether words go with it: required, optional (offered), none (not asked for). */
  needs_text: 'required' | 'optional' | 'none';
  /** What the words are, as a placeholder: "…", "feedback", "why"; null with needs_text none. */
  placeholder: string | null;
  /** A pause's decision ids (signal --answers), else null. */
  decisions: string[] | null;
  /** What it does to the workflow: "returns APPROVED to the workflow", "goes back to the agent". */
  effect: string | null;
}

/** How to answer a waiting call's current ask (what each verdict does comes from the matrix). */
export function answerSuggestions(exec: Execution): AnswerSuggestion[] {
  const handle = handleOf(exec);
  const s = (
    verb: AnswerSuggestion['verb'],
    label: string,
    needs_text: AnswerSuggestion['needs_text'],
    placeholder: string | null,
    effect: string | null = null,
    decisions: string[] | null = null,
  ): AnswerSuggestion => ({ verb, handle, label, needs_text, placeholder, decisions, effect });
  if (exec.kind === 'pause') {
    const spec = exec.request as { decisions?: { id: string }[] } | null;
    const ids = spec?.decisions?.map((d) => d.id) ?? [];
    return [
      s('continue', 'decide here', 'none', null),
      ids.length ? s('signal', 'scripted', 'none', null, null, ids) : s('approve', 'approve', 'none', null),
      s('reject', 'stop it', 'optional', 'why'),
    ];
  }
  const awaiting = (exec.awaiting ?? 'input') as Awaiting;
  const row = VERDICT_MATRIX[awaiting] ?? VERDICT_MATRIX.input;
  const effect = (e: VerdictEffect) =>
    e.kind === 'close' ? `returns ${e.status} to the workflow` : 'goes back to the agent';
  const out = [s('continue', 'talk to the agent', 'none', null)];
  if (awaiting === 'input') out.push(s('answer', 'answer it', 'required', '…'));
  else
    out.push(s('approve', 'approve', awaiting === 'escalation' ? 'required' : 'optional', '…', effect(row.approved)));
  if (row.rejected.kind !== 'invalid') {
    const needs = row.rejected.kind === 'back' && awaiting !== 'checkpoint' ? 'required' : 'optional';
    out.push(s('reject', 'reject', needs, 'feedback', effect(row.rejected)));
  }
  return out;
}

/** The exact command of a suggestion: `shop approve 33.4 [--message "…"]`, `shop answer 33.4.2 "…"`. */
export function suggestionCommand(s: AnswerSuggestion): string {
  const base = `shop ${s.verb} ${s.handle}`;
  if (s.decisions) return `${base} --answers '{${s.decisions.map((id) => `"${id}": …`).join(', ')}}'`;
  if (s.needs_text === 'none' || !s.placeholder) return base;
  if (s.verb === 'approve')
    return s.needs_text === 'required'
      ? `${base} --message "${s.placeholder}"`
      : `${base} [--message "${s.placeholder}"]`;
  return `${base} "${s.placeholder}"`;
}

/** The commands that answer an ask, for --json `answer_with` and notices; `except` leaves those verbs out. */
export const answerCommands = (exec: Execution, except: AnswerSuggestion['verb'][] = []): string[] =>
  answerSuggestions(exec)
    .filter((s) => !except.includes(s.verb))
    .map(suggestionCommand);
