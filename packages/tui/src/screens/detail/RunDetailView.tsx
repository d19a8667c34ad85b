import { Box } from 'ink';
import { Text } from '../../components/Text.js';
import { eventLine, factsLine, reasonLine, statusText } from '../../format/run-detail.js';
import { runLook } from '../../format/status.js';
import { oneLine } from '../../format/time.js';
import { useTheme } from '../../theme.js';
import { CallPanel } from './CallPanel.js';
import { ExecutionRows } from './ExecutionRows.js';
import type { DetailLayout, DetailState } from './use-detail-state.js';

/** A run's details: status, reason, waiting time, the calls, the selected call's log, the audit trail. */
export function RunDetailView({
  state,
  layout,
  now,
  runId,
}: {
  state: DetailState;
  layout: DetailLayout;
  now: number;
  runId: number;
}) {
  const theme = useTheme();
  const { view, status } = state;
  if (!view || !status) return <Text>{`Run ${runId}: reading…`}</Text>;
  const look = runLook(status);
  const reason = reasonLine(view, status);
  return (
    <Box flexDirection="column">
      <Text wrap="truncate-end">
        <Text bold={theme.colors}>{`Run ${view.run.id}: ${view.run.spec}`}</Text>
        <Text color={theme.tone('muted')}>{` — ${oneLine(view.run.prompt) || 'no prompt'}`}</Text>
      </Text>
      <Text wrap="truncate-end">
        {'Status: '}
        <Text color={theme.tone(look.tone)}>{`${look.icon} ${statusText(view, status)}`}</Text>
      </Text>
      <Text wrap="truncate-end">{reason ? `${reason.label}: ${reason.text}` : ' '}</Text>
      <Text wrap="truncate-end">{factsLine(view, now)}</Text>
      <ExecutionRows
        rows={state.rows}
        start={state.windowStart}
        cursor={state.cursor}
        height={layout.execs}
        count={state.count}
        earlier={state.earlier}
        runId={runId}
        now={now}
        goneSince={status === 'interrupted' ? view.run.updatedAt : null}
      />
      <CallPanel
        exec={state.selected}
        claim={view.waitingAll.find((e) => e.key === state.selected?.key)?.claim ?? null}
        log={state.log}
        height={layout.log}
        now={now}
      />
      <Text bold={theme.colors}>Audit trail</Text>
      <Box flexDirection="column" height={layout.audit}>
        {state.events.map((e) => (
          <Text key={e.id} wrap="truncate-end" color={theme.tone('muted')}>{`  ${eventLine(e, now)}`}</Text>
        ))}
      </Box>
    </Box>
  );
}
