import { Box } from 'ink';
import { Text } from '../components/Text.js';
import { Cell } from '../components/Cell.js';
import { HintLine } from '../components/StatusLine.js';
import { BINDINGS } from '../keys/bindings.js';
import { useKeypress } from '../keys/KeypressContext.js';
import { useTheme } from '../theme.js';

/** Every key, from the one bindings table; any key closes it. */
export function HelpView({ onClose }: { onClose: () => void }) {
  const theme = useTheme();
  useKeypress('help', () => onClose());
  return (
    <Box flexDirection="column">
      <Text bold={theme.colors}>Keys</Text>
      {BINDINGS.map((b) => (
        <Box key={b.command}>
          <Text>{'  '}</Text>
          <Cell width={8} color={theme.tone('accent')}>
            {b.shows}
          </Cell>
          <Cell grow>{b.does}</Cell>
        </Box>
      ))}
      <Text> </Text>
      <Text wrap="truncate-end">
        {'  In the details, ↑↓ pick a call: c, A and R answer the picked call when it waits.'}
      </Text>
      <Text wrap="truncate-end">
        {'  An answer or a stop asks first: y after a pause does it, any other key (Enter too) cancels.'}
      </Text>
      <HintLine text="any key closes this" />
    </Box>
  );
}
