import { Box } from 'ink';
import { Text } from '../../components/Text.js';
import { runLook } from '../../format/status.js';
import { useTheme } from '../../theme.js';
import { Cell } from '../../components/Cell.js';

export interface RunRowModel {
  id: number;
  spec: string;
  status: string;
  agent: string;
  what: string;
  age: string;
  cost: string;
}

export const COLUMNS = { id: 6, spec: 12, status: 14, agent: 12, age: 4, cost: 7 };

/** The column titles, aligned with the rows. */
export function RunHeader() {
  const theme = useTheme();
  const c = COLUMNS;
  return (
    <Box>
      <Text>{'  '}</Text>
      <Cell width={c.id} color={theme.tone('muted')}>
        ID
      </Cell>
      <Cell width={c.spec} color={theme.tone('muted')}>
        SPEC
      </Cell>
      <Cell width={c.status} color={theme.tone('muted')}>
        STATUS
      </Cell>
      <Cell width={c.agent} color={theme.tone('muted')}>
        AGENT
      </Cell>
      <Cell grow color={theme.tone('muted')}>
        ACTIVITY / WAITING FOR
      </Cell>
      <Cell width={c.age} right color={theme.tone('muted')}>
        AGE
      </Cell>
      <Cell width={c.cost} right color={theme.tone('muted')}>
        COST
      </Cell>
    </Box>
  );
}

/** One run of the list: id, spec, status icon, agent and what it does or waits for, age, cost. */
export function RunRow({ row, selected }: { row: RunRowModel; selected: boolean }) {
  const theme = useTheme();
  const look = runLook(row.status);
  const c = COLUMNS;
  return (
    <Box>
      <Text color={theme.tone('accent')}>{selected ? '› ' : '  '}</Text>
      <Cell width={c.id} bold={selected && theme.colors}>
        {String(row.id)}
      </Cell>
      <Cell width={c.spec}>{row.spec}</Cell>
      <Cell width={c.status} color={theme.tone(look.tone)}>{`${look.icon} ${look.word}`}</Cell>
      <Cell width={c.agent}>{row.agent}</Cell>
      <Cell grow>{row.what || '-'}</Cell>
      <Cell width={c.age} right>
        {row.age}
      </Cell>
      <Cell width={c.cost} right>
        {row.cost}
      </Cell>
    </Box>
  );
}
