import { useMemo } from 'react';
import { Browser } from './app/Browser.js';
import type { TuiDeps } from './deps.js';
import { KeypressProvider } from './keys/KeypressContext.js';
import { ThemeContext, themeFor } from './theme.js';

/** The run browser with its providers: the theme (NO_COLOR) and the one keypress source. */
export function App({ deps }: { deps: TuiDeps }) {
  const theme = useMemo(() => themeFor(deps.env), [deps.env]);
  return (
    <ThemeContext.Provider value={theme}>
      <KeypressProvider>
        <Browser deps={deps} />
      </KeypressProvider>
    </ThemeContext.Provider>
  );
}
