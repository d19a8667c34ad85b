import { Box } from 'ink';
import { Text } from '../../components/Text.js';
import { Cell } from '../../components/Cell.js';
import { callName, callSummary, type TreeRow } from '../../format/exec-tree.js';
import { callTime } from '../../format/run-detail.js';
import { execLook, runLook } from '../../format/status.js';
import { usd } from '../../format/time.js';
import { useTheme } from '../../theme.js';

/** "#1 architect ✓ 2m 15s": one call, branches indented under their parallel. */
function ExecutionRow({
  row,
  selected,
  now,
  goneSince,
}: {
  row: TreeRow;
  selected: boolean;
  now: number;
  goneSince: number | null;
}) {
  const theme = useTheme();
  const { exec, depth } = row;
  const gone = exec.status === 'running' && goneSince !== null;
  const look = gone ? runLook('interrupted') : execLook(exec.status);
  return (
    <Box>
      <Text color={theme.tone('accent')}>{selected ? '› ' : '  '}</Text>
      <Cell width={28}>{`${'  '.repeat(depth)}#${exec.key} ${callName(exec)}`}</Cell>
      <Cell width={16} color={theme.tone(look.tone)}>{`${look.icon} ${callTime(exec, now, goneSince)}`}</Cell>
      <Cell width={7} right>
        {usd(exec.costUsd)}
      </Cell>
      <Cell grow color={theme.tone('muted')}>
        {gone && exec.activity ? `last: ${callSummary(exec)}` : callSummary(exec)}
      </Cell>
    </Box>
  );
}

/** The window of a run's calls, in tree order; `earlier` older ones were not read (shop log has them). */
export function ExecutionRows({
  rows,
  start,
  cursor,
  height,
  count,
  earlier,
  runId,
  now,
  goneSince,
}: {
  rows: TreeRow[];
  start: number;
  cursor: number;
  height: number;
  count: number;
  earlier: number;
  runId: number;
  now: number;
  /** When the run's driver went away (the run is interrupted), or null. */
  goneSince: number | null;
}) {
  const theme = useTheme();
  const position = count > height ? `${cursor + 1}/${count}` : '';
  const older = earlier > 0 ? `${earlier} earlier: shop log ${runId}` : '';
  const note = [position, older].filter(Boolean).join(' · ');
  return (
    <Box flexDirection="column">
      <Text bold={theme.colors} wrap="truncate-end">{`Executions${note ? ` (${note})` : ''}`}</Text>
      <Box flexDirection="column" height={height}>
        {count === 0 ? <Text color={theme.tone('muted')}> no calls yet</Text> : null}
        {rows.map((row, i) => (
          <ExecutionRow key={row.exec.key} row={row} selected={start + i === cursor} now={now} goneSince={goneSince} />
        ))}
      </Box>
    </Box>
  );
}
