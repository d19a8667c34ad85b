import { Box } from 'ink';
import { Text } from './Text.js';
import type { StatusMessage } from '../hooks/use-status.js';
import { useTheme } from '../theme.js';

const TONE = { info: 'accent', success: 'success', error: 'error' } as const;

/** What the last action did, or why it failed: always two lines tall, so the screen does not jump. */
export function StatusLine({ status }: { status: StatusMessage | null }) {
  const theme = useTheme();
  return (
    <Box height={2} overflowY="hidden">
      {status ? (
        <Text wrap="wrap" color={theme.tone(TONE[status.tone])}>
          {status.tone === 'error' ? `✗ ${status.text}` : status.text}
        </Text>
      ) : (
        <Text> </Text>
      )}
    </Box>
  );
}

/** The keys of the screen, in one muted line. */
export function HintLine({ text }: { text: string }) {
  const theme = useTheme();
  return (
    <Text wrap="truncate-end" color={theme.tone('muted')}>
      {text}
    </Text>
  );
}
