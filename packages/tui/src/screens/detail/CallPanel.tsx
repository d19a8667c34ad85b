import type { AskClaim, Execution } from '@shop/core';
import { Box } from 'ink';
import { Text } from '../../components/Text.js';
import { callName, callSummary } from '../../format/exec-tree.js';
import { age, oneLine } from '../../format/time.js';
import { useTheme } from '../../theme.js';

/** The selected call: what it does now (live activity), then the tail of its newest log. */
export function CallPanel({
  exec,
  claim,
  log,
  height,
  now,
}: {
  exec: Execution | null;
  claim: AskClaim | null;
  log: { lines: string[] } | null;
  height: number;
  now: number;
}) {
  const theme = useTheme();
  if (!exec) return <Box height={height + 1} />;
  const doing = exec.status === 'running' ? `activity: ${oneLine(exec.activity) || 'working…'}` : callSummary(exec);
  const lines = log?.lines.length
    ? log.lines
    : [exec.kind === 'run' ? 'no log yet' : `(${exec.kind} calls have no log)`];
  return (
    <Box flexDirection="column">
      <Text wrap="truncate-end">
        <Text bold={theme.colors}>{`#${exec.key} ${callName(exec)}`}</Text>
        <Text>{doing ? ` — ${oneLine(doing)}` : ''}</Text>
        {claim && claim.until > now ? (
          <Text
            color={theme.tone('accent')}
          >{` · claimed by ${claim.by} (${claim.channel}) ${age(now - claim.since)} ago`}</Text>
        ) : null}
      </Text>
      <Box flexDirection="column" height={height}>
        {lines.map((line, i) => (
          <Text key={i} wrap="truncate-end" color={theme.tone('muted')}>{`  ${line}`}</Text>
        ))}
      </Box>
    </Box>
  );
}
