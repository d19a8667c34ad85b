import { Box } from 'ink';
import type { ConfirmOverlay } from '../app/use-browser.js';
import { HintLine } from '../components/StatusLine.js';
import { Text } from '../components/Text.js';
import { useSyncState } from '../hooks/use-sync-state.js';
import { useKeypress } from '../keys/KeypressContext.js';
import { useTheme } from '../theme.js';

/**
 * How long no key may come before a y counts (ms): keys typed on from what opened the question
 * (a word meant for another window, a password and its Enter) arrive closer together than this.
 */
export const CONFIRM_QUIET_MS = 500;

/**
 * Asks before an action on a run. Only `y` acts, and only once CONFIRM_QUIET_MS have passed
 * with no key since the question appeared (a y typed sooner is ignored and the wait starts
 * again); any other key, Enter and Esc included, takes the question away with nothing done.
 * So stray typing cannot complete it, as lazygit's and gemini-cli's confirmations can be by Enter.
 */
export function ConfirmAction({
  confirm,
  now,
  onCancel,
}: {
  confirm: ConfirmOverlay;
  now: () => number;
  onCancel: () => void;
}) {
  const theme = useTheme();
  const [state, setState] = useSyncState(() => ({ quietSince: now(), early: false }));
  useKeypress('confirm', (input, key) => {
    const at = now();
    const yes = input === 'y' && !key.ctrl && !key.meta;
    if (!yes) return onCancel();
    if (at - state().quietSince < CONFIRM_QUIET_MS) return setState(() => ({ quietSince: at, early: true }));
    confirm.act();
  });
  return (
    <Box flexDirection="column">
      <Text bold={theme.colors} wrap="truncate-end">
        {confirm.title}
      </Text>
      {confirm.lines.map((line, i) => (
        <Text key={i} wrap="truncate-end">
          {line}
        </Text>
      ))}
      {state().early ? (
        <Text
          color={theme.tone('error')}
          wrap="truncate-end"
        >{`y typed too soon after the question: ignored — wait a moment, then y to ${confirm.verb}`}</Text>
      ) : null}
      <HintLine text={`[y] ${confirm.verb} (after a pause)  [any other key] cancel`} />
    </Box>
  );
}
