import type { AnswerSuggestion } from '../decisions/answer-hint.js';
import { endedStatuses } from '../types.js';

/** What a person may do to a run or one of its asks. */
export type ActionVerb = AnswerSuggestion['verb'] | 'claim' | 'release' | 'resume' | 'stop';

/** What acting takes besides its target: nothing, words (required or offered), a pause's decisions, or a reason. */
export type ActionNeeds = 'nothing' | 'words' | 'optional words' | 'decisions' | 'reason';

/**
 * One act a person may take, as data: each front end renders it (the CLI as a command line,
 * the TUI as a key, the web as a button or form). `handle` is the ask's ("33.4") or, for a
 * run's own acts, the run id ("33"). An ask's answers are its suggestions (answer-hint.ts).
 */
export interface PersonAction {
  verb: ActionVerb;
  handle: string;
  needs: ActionNeeds;
}

/** Claiming an ask, or letting go for the person whose claim it is (its claim as the store keeps it or as --json shows it). */
export function claimVerb(claim: { by: string } | null, person: string | null): 'claim' | 'release' {
  return claim !== null && claim.by === person ? 'release' : 'claim';
}

/**
 * A run's own acts, by the status it is shown with (runLook, or --json's): resume one whose
 * driver is gone (interrupted) or that failed (a retry), stop any not ended.
 */
export function runActions(run: { id: number; status: string }): PersonAction[] {
  const handle = String(run.id);
  const resume: PersonAction[] =
    run.status === 'interrupted' || run.status === 'failed' ? [{ verb: 'resume', handle, needs: 'nothing' }] : [];
  const ended = (endedStatuses as readonly string[]).includes(run.status);
  return [...resume, ...(ended ? [] : [{ verb: 'stop' as const, handle, needs: 'reason' as const }])];
}

/** Whether a run's acts include `verb`. */
export const mayAct = (run: { id: number; status: string }, verb: ActionVerb): boolean =>
  runActions(run).some((a) => a.verb === verb);

/** The verdicts an ask takes in words: a pause is approved or rejected (or given its decisions), never a free answer. */
export function takesVerdict(ask: { kind: string }, verdict: string): boolean {
  return !(ask.kind === 'pause' && verdict === 'answer');
}
