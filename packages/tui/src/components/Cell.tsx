import { Box } from 'ink';
import { Text } from './Text.js';
import type { ReactNode } from 'react';

/** One column of a table row: a fixed width (or the rest of the row), truncated with "…". */
export function Cell({
  width,
  grow,
  right,
  color,
  bold,
  children,
}: {
  width?: number;
  grow?: boolean;
  right?: boolean;
  color?: string;
  bold?: boolean;
  children: ReactNode;
}) {
  return (
    <Box
      width={width}
      flexGrow={grow ? 1 : 0}
      flexShrink={grow ? 1 : 0}
      flexBasis={grow ? 0 : undefined}
      marginRight={1}
      justifyContent={right ? 'flex-end' : 'flex-start'}
    >
      <Text wrap="truncate-end" color={color} bold={bold}>
        {children}
      </Text>
    </Box>
  );
}
