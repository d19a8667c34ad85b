import { Box } from 'ink';
import { Text } from '../../components/Text.js';
import { Cell } from '../../components/Cell.js';
import { useTheme } from '../../theme.js';
import type { AskRow, InboxState } from './use-inbox-state.js';

const W = { run: 6, spec: 12, call: 8, from: 12, awaiting: 11, claimed: 10, waited: 9 };

function Row({ row, selected }: { row: AskRow; selected: boolean }) {
  const theme = useTheme();
  return (
    <Box>
      <Text color={theme.tone('accent')}>{selected ? '› ' : '  '}</Text>
      <Cell width={W.run}>{String(row.runId)}</Cell>
      <Cell width={W.spec}>{row.spec}</Cell>
      <Cell width={W.call}>{row.key}</Cell>
      <Cell width={W.from}>{row.from}</Cell>
      <Cell width={W.awaiting} color={theme.tone('attention')}>
        {row.awaiting}
      </Cell>
      <Cell grow>{row.question || '-'}</Cell>
      <Cell width={W.claimed} color={theme.tone('accent')}>
        {row.claimedBy}
      </Cell>
      <Cell width={W.waited} right>
        {row.waited}
      </Cell>
    </Box>
  );
}

/** The inbox: every pending ask across runs, oldest first, with how long it has waited. */
export function InboxView({ state, height }: { state: InboxState; height: number }) {
  const theme = useTheme();
  const muted = theme.tone('muted');
  return (
    <Box flexDirection="column">
      <Text wrap="truncate-end">
        <Text bold={theme.colors}>Inbox</Text>
        <Text color={muted}>{` — ${state.count} pending ask${state.count === 1 ? '' : 's'}, oldest first`}</Text>
      </Text>
      <Box>
        <Text>{'  '}</Text>
        <Cell width={W.run} color={muted}>
          RUN
        </Cell>
        <Cell width={W.spec} color={muted}>
          SPEC
        </Cell>
        <Cell width={W.call} color={muted}>
          CALL
        </Cell>
        <Cell width={W.from} color={muted}>
          FROM
        </Cell>
        <Cell width={W.awaiting} color={muted}>
          AWAITING
        </Cell>
        <Cell grow color={muted}>
          QUESTION
        </Cell>
        <Cell width={W.claimed} color={muted}>
          CLAIMED
        </Cell>
        <Cell width={W.waited} right color={muted}>
          WAITED
        </Cell>
      </Box>
      <Box flexDirection="column" height={height}>
        {state.count === 0 ? <Text color={muted}> nothing waits for a person</Text> : null}
        {state.rows.map((row, i) => (
          <Row key={`${row.runId}:${row.key}`} row={row} selected={state.windowStart + i === state.cursor} />
        ))}
      </Box>
    </Box>
  );
}
