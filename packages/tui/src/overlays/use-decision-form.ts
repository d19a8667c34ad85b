import { ShopError, buildAnswer, callDecisions } from '@shop/core';
import type { AnswerInput, Execution } from '@shop/core';
import type { Key } from 'ink';
import type { FormOverlay } from '../app/use-browser.js';
import { useSyncState } from '../hooks/use-sync-state.js';
import { editText } from '../keys/edit-text.js';
import { useKeypress } from '../keys/KeypressContext.js';
import {
  cycle,
  fieldProblem,
  formAnswer,
  formProblems,
  initialFields,
  isTyped,
  PLAIN,
  type Field,
} from './form-fields.js';

interface FormState {
  fields: Field[];
  note: string;
  /** The focused field; fields.length is the note. */
  at: number;
  touched: ReadonlySet<string>;
  /** The problems found by the last Enter, until something changes. */
  checked: Record<string, string> | null;
  formError: string | null;
}

/** A key's effect on the form (Enter and Esc are the caller's). */
function edit(s: FormState, input: string, key: Key): FormState {
  if (key.upArrow || (key.tab && key.shift)) return { ...s, at: Math.max(0, s.at - 1) };
  if (key.downArrow || key.tab) return { ...s, at: Math.min(s.fields.length, s.at + 1) };
  if (s.at === s.fields.length) return { ...s, note: editText(s.note, input, key) ?? s.note };
  const f = s.fields[s.at];
  let next: Field | null = null;
  if (isTyped(f.decision)) {
    const text = editText(f.text, input, key);
    next = text === null ? null : { ...f, text };
  } else if (key.leftArrow) next = cycle(f, -1);
  else if (key.rightArrow || input === ' ') next = cycle(f, 1);
  else if (f.decision.type === 'approval' && (input === 'y' || input === 'n')) next = { ...f, picked: input === 'y' };
  if (!next) return s;
  const fields = s.fields.map((x, i) => (i === s.at ? next : x));
  return { ...s, fields, touched: new Set(s.touched).add(f.decision.id), checked: null, formError: null };
}

/**
 * A pause's decisions as a form: ↑↓/Tab between fields, ←→ / space / y n to choose, typing
 * for text. A field's rule shows beside it as soon as it is edited; Enter checks the whole
 * answer as the core will, and records nothing while anything is wrong.
 */
export function useDecisionForm(
  form: FormOverlay,
  onSubmit: (exec: Execution, input: AnswerInput) => void,
  onCancel: () => void,
) {
  const decisions = callDecisions(form.exec);
  const plain = decisions.length === 0;
  const [state, setState] = useSyncState<FormState>(() => ({
    fields: initialFields(plain ? [PLAIN] : decisions, form.approving),
    note: '',
    at: 0,
    touched: new Set(),
    checked: null,
    formError: null,
  }));

  const submit = () => {
    const { fields, note } = state();
    const problems = plain
      ? Object.fromEntries(
          fields.flatMap((f) => {
            const p = fieldProblem(f);
            return p ? [[f.decision.id, p]] : [];
          }),
        )
      : formProblems(fields);
    if (Object.keys(problems).length) return setState((s) => ({ ...s, checked: problems }));
    const input = formAnswer(fields, note, plain);
    try {
      buildAnswer(form.exec, input);
    } catch (e) {
      if (!(e instanceof ShopError)) throw e;
      return setState((s) => ({ ...s, formError: e.message }));
    }
    onSubmit(form.exec, input);
  };

  useKeypress('form', (input, key) => {
    if (key.escape) return onCancel();
    if (key.return) return submit();
    setState((s) => edit(s, input, key));
  });

  const s = state();
  const problemOf = (f: Field) =>
    s.checked ? (s.checked[f.decision.id] ?? null) : s.touched.has(f.decision.id) ? fieldProblem(f) : null;
  return { fields: s.fields, note: s.note, at: s.at, plain, formError: s.formError, problemOf };
}
