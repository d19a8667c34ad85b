import { ExitCode } from '@shop/core';
import { describe, expect, it } from 'vitest';
import { globalHelp } from './help.js';

describe('shop help', () => {
  it('says what every exit code means, 7 (waiting on time, an event or a run) included', () => {
    const line = globalHelp()
      .split('\n')
      .find((l) => l.startsWith('Exit codes: '));
    for (const code of Object.values(ExitCode)) expect(line).toMatch(new RegExp(`(: | · )${code} [a-z]`));
    expect(line).toContain('7 waiting on time, an event or a run');
  });
});
