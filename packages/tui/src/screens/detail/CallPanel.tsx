import type { Execution } from '@shop/core/types';
import { Box } from 'ink';
import { Text } from '../../components/Text.js';
import { callName, callSummary } from '../../format/exec-tree.js';
import { oneLine } from '../../format/time.js';
import { useTheme } from '../../theme.js';

/** The selected call: what it does now (live activity), then the tail of its newest log. */
export function CallPanel({ exec, log, height }: { exec: Execution | null; log: { lines: string[] } | null; height: number }) {
  const theme = useTheme();
  if (!exec) return <Box height={height + 1} />;
  const now = exec.status === 'running' ? `activity: ${oneLine(exec.activity) || 'working…'}` : callSummary(exec);
  const lines = log?.lines.length ? log.lines : [exec.kind === 'run' ? 'no log yet' : `(${exec.kind} calls have no log)`];
  return (
    <Box flexDirection="column">
      <Text wrap="truncate-end">
        <Text bold={theme.colors}>{`#${exec.key} ${callName(exec)}`}</Text>
        <Text>{now ? ` — ${oneLine(now)}` : ''}</Text>
      </Text>
      <Box flexDirection="column" height={height}>
        {lines.map((line, i) => <Text key={i} wrap="truncate-end" color={theme.tone('muted')}>{`  ${line}`}</Text>)}
      </Box>
    </Box>
  );
}
