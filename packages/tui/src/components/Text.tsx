import { Text as InkText } from 'ink';
import { Children, type ComponentProps, type ReactNode } from 'react';
import { inert } from '@shop/core';

/**
 * Ink's Text, with every string in it made inert: Ink writes strings to the terminal as they
 * are, so an agent's question holding `\x1b[2J` would clear the screen. Every component of
 * the browser imports Text from here, never from 'ink' (a test checks): the one place where
 * text from agents, workflows and people meets the terminal.
 */
export function Text({ children, ...props }: ComponentProps<typeof InkText>) {
  return <InkText {...props}>{clean(children)}</InkText>;
}

function clean(node: ReactNode): ReactNode {
  if (typeof node === 'string') return inert(node);
  if (Array.isArray(node)) return Children.map(node, clean);
  return node;
}
