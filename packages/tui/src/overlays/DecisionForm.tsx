import type { AnswerInput, Execution, PauseSpec } from '@shop/core';
import { Box } from 'ink';
import { Text } from '../components/Text.js';
import type { FormOverlay } from '../app/use-browser.js';
import { Cell } from '../components/Cell.js';
import { HintLine } from '../components/StatusLine.js';
import { useTheme } from '../theme.js';
import { isTyped, type Field } from './form-fields.js';
import { useDecisionForm } from './use-decision-form.js';

function shown(f: Field, focused: boolean): string {
  if (isTyped(f.decision)) return `${f.text}${focused ? '▏' : ''}`;
  if (f.decision.type === 'approval') return f.picked === null ? '— (y/n)' : f.picked ? 'yes' : 'no';
  return f.picked === null ? '—' : String(f.picked);
}

function options(f: Field): string {
  const values = (f.decision.options ?? []).map((o) => o.value);
  if (!values.length) return '';
  return f.decision.type === 'multi_choice' ? `comma-separated: ${values.join(', ')}` : values.join(' · ');
}

function FieldRow({
  label,
  value,
  hint,
  focused,
  problem,
}: {
  label: string;
  value: string;
  hint: string;
  focused: boolean;
  problem: string | null;
}) {
  const theme = useTheme();
  return (
    <Box flexDirection="column">
      <Box>
        <Text color={theme.tone('accent')}>{focused ? '› ' : '  '}</Text>
        <Cell width={30}>{label}</Cell>
        <Cell width={24}>{value}</Cell>
        <Cell grow color={theme.tone('muted')}>
          {hint}
        </Cell>
      </Box>
      {problem ? <Text color={theme.tone('error')}>{`    ✗ ${problem}`}</Text> : null}
    </Box>
  );
}

/** The decisions of a pause (or continue / stop for a plain one), with each rule shown inline. */
export function DecisionForm({
  form,
  onSubmit,
  onCancel,
}: {
  form: FormOverlay;
  onSubmit: (exec: Execution, input: AnswerInput) => void;
  onCancel: () => void;
}) {
  const theme = useTheme();
  const state = useDecisionForm(form, onSubmit, onCancel);
  const spec = form.exec.request as PauseSpec | null;
  return (
    <Box flexDirection="column">
      <Text
        bold={theme.colors}
        wrap="truncate-end"
      >{`Decide run ${form.run.id} call ${form.exec.key} — ${spec?.message ?? form.exec.waitingFor ?? ''}`}</Text>
      {spec?.context ? (
        <Text wrap="truncate-end" color={theme.tone('muted')}>
          {spec.context}
        </Text>
      ) : null}
      {state.fields.map((f, i) => (
        <FieldRow
          key={f.decision.id}
          label={`${f.decision.prompt}${f.decision.required ? '' : ' (optional)'}`}
          value={shown(f, state.at === i)}
          hint={options(f) || (state.at === i ? (f.decision.description ?? '') : '')}
          focused={state.at === i}
          problem={state.problemOf(f)}
        />
      ))}
      <FieldRow
        label={state.plain ? 'Note / reason (optional)' : 'Note (optional)'}
        value={`${state.note}${state.at === state.fields.length ? '▏' : ''}`}
        hint=""
        focused={state.at === state.fields.length}
        problem={null}
      />
      {state.formError ? <Text color={theme.tone('error')} wrap="truncate-end">{`✗ ${state.formError}`}</Text> : null}
      <HintLine text="[↑↓ Tab] field  [←→ space y/n] choose  [Enter] submit  [Esc] cancel" />
    </Box>
  );
}
