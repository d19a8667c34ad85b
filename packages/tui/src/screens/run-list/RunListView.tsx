import { Box } from 'ink';
import { Text } from '../../components/Text.js';
import { useTheme } from '../../theme.js';
import { RunHeader, RunRow } from './RunRow.js';
import type { RunListState } from './use-run-list-state.js';

/** The run list, a pure view of its state: title, column titles, the window of rows, the filter line. */
export function RunListView({
  state,
  height,
  waiting,
  loaded,
}: {
  state: RunListState;
  height: number;
  waiting: number;
  loaded: boolean;
}) {
  const theme = useTheme();
  const { rows, cursor, windowStart, count, total, filter, filtering, activeOnly } = state;
  const facts = [
    count === total ? `${total} run${total === 1 ? '' : 's'}` : `${count} of ${total} runs`,
    waiting ? `${waiting} waiting` : '',
    filter && !filtering ? `filter: ${filter}` : '',
    activeOnly ? 'active only' : '',
    count > height ? `${cursor + 1}/${count}` : '',
  ].filter(Boolean);
  return (
    <Box flexDirection="column">
      <Text wrap="truncate-end">
        <Text bold={theme.colors}>Shop runs</Text>
        <Text color={theme.tone('muted')}>{` — ${facts.join(' · ')}`}</Text>
      </Text>
      <RunHeader />
      <Box flexDirection="column" height={height}>
        {rows.length === 0 ? (
          <Text color={theme.tone('muted')}>
            {!loaded
              ? 'reading runs…'
              : total === 0
                ? '  no runs yet; start one with: shop run <workflow> [prompt…]'
                : '  no runs match'}
          </Text>
        ) : (
          rows.map((row, i) => <RunRow key={row.id} row={row} selected={windowStart + i === cursor} />)
        )}
      </Box>
      {filtering ? (
        <Text wrap="truncate-end">
          {`/${filter}`}
          <Text color={theme.tone('accent')}>▏</Text>
        </Text>
      ) : null}
    </Box>
  );
}
