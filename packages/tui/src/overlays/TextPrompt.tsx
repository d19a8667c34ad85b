import { Box } from 'ink';
import { Text } from '../components/Text.js';
import type { PromptOverlay } from '../app/use-browser.js';
import { HintLine } from '../components/StatusLine.js';
import { useSyncState } from '../hooks/use-sync-state.js';
import { editText } from '../keys/edit-text.js';
import { useKeypress } from '../keys/KeypressContext.js';
import { useTheme } from '../theme.js';

/** One line typed in (a message, feedback, a reason); a problem shows under it and it stays open. */
export function TextPrompt({ prompt, onCancel }: { prompt: PromptOverlay; onCancel: () => void }) {
  const theme = useTheme();
  const [state, setState] = useSyncState(() => ({ text: '', error: null as string | null }));
  useKeypress('prompt', (input, key) => {
    if (key.escape) return onCancel();
    if (key.return) {
      const error = prompt.submit(state().text);
      return setState((s) => ({ ...s, error }));
    }
    setState((s) => {
      const text = editText(s.text, input, key);
      return text === null ? s : { text, error: null };
    });
  });
  const { text, error } = state();
  return (
    <Box flexDirection="column">
      <Text bold={theme.colors} wrap="truncate-end">
        {prompt.title}
      </Text>
      <Text wrap="truncate-end">
        {`${prompt.label}: ${text}`}
        <Text color={theme.tone('accent')}>▏</Text>
      </Text>
      {error ? <Text color={theme.tone('error')} wrap="wrap">{`✗ ${error}`}</Text> : null}
      <HintLine text="[Enter] send  [Esc] cancel" />
    </Box>
  );
}
