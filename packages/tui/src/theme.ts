import { createContext, useContext } from 'react';
import type { Tone } from './format/status.js';

/** Semantic colours; with NO_COLOR set (and not empty) there are none, and no bold either. */
export interface Theme {
  colors: boolean;
  tone(t: Tone | 'accent'): string | undefined;
}

const PALETTE: Record<Tone | 'accent', string> = {
  active: 'cyan',
  attention: 'yellow',
  success: 'green',
  error: 'red',
  warning: 'magenta',
  muted: 'gray',
  accent: 'blue',
};

export function themeFor(env: NodeJS.ProcessEnv): Theme {
  const colors = !env.NO_COLOR;
  return { colors, tone: (t) => (colors ? PALETTE[t] : undefined) };
}

export const ThemeContext = createContext<Theme>(themeFor({ NO_COLOR: '1' }));
export const useTheme = (): Theme => useContext(ThemeContext);
