import { Box } from 'ink';
import { Text } from '../components/Text.js';
import type { HandoffOverlay } from '../app/use-browser.js';
import { useTheme } from '../theme.js';

/** What shows while another program has the terminal (and what Ink redraws over when it is back). */
export function Handoff({ handoff }: { handoff: HandoffOverlay }) {
  const theme = useTheme();
  return (
    <Box flexDirection="column" borderStyle="round" paddingX={1}>
      <Text bold={theme.colors}>{handoff.title}</Text>
      {handoff.lines.map((line, i) => (
        <Text key={i} wrap="truncate-end">
          {line || ' '}
        </Text>
      ))}
    </Box>
  );
}
