import { describe, expect, it } from 'vitest';
import { oneThread } from '../testing/one-thread.js';
import { callOf, fingerprint, matchesRecord } from './registry.js';

/** What a workflow's sleep() line does when run: the request it yields, or the error at its line. */
const at = (line: string) => oneThread(`function workflow(prompt)\n  ${line}\nend\n`, 'nap.lua').start('');

describe('sleep() and sleep_until() as Lua reads them', () => {
  it('yields a sleep request for 0 to 366 days of seconds', () => {
    expect(at('sleep(90)')).toEqual({ kind: 'request', request: { type: 'sleep', seconds: 90 } });
    expect(at('sleep(0)')).toEqual({ kind: 'request', request: { type: 'sleep', seconds: 0 } });
    expect(at('sleep(0.25)')).toEqual({ kind: 'request', request: { type: 'sleep', seconds: 0.25 } });
    expect(at('sleep(366 * 86400)')).toEqual({ kind: 'request', request: { type: 'sleep', seconds: 31_622_400 } });
    expect(at('sleep_until(1000)')).toEqual({ kind: 'request', request: { type: 'sleep_until', until: 1000 } });
  });

  it.each([
    ['sleep(-1)', 'nap.lua:2: sleep(seconds): seconds must be 0 or more; got -1'],
    ['sleep(1e12)', 'nap.lua:2: sleep(seconds): at most 31622400 seconds (366 days); got 1000000000000'],
    ['sleep(366 * 86400 + 1)', 'nap.lua:2: sleep(seconds): at most 31622400 seconds (366 days); got 31622401'],
    ['sleep("x")', 'nap.lua:2: sleep(seconds): seconds must be a number; got a string'],
    ['sleep("10")', 'nap.lua:2: sleep(seconds): seconds must be a number; got a string'],
    ['sleep()', 'nap.lua:2: sleep(seconds): seconds must be a number; got nothing'],
    ['sleep({})', 'nap.lua:2: sleep(seconds): seconds must be a number; got a table'],
    ['sleep(0/0)', 'nap.lua:2: sleep(seconds): seconds must be a finite number; got NaN'],
    ['sleep(math.huge)', 'nap.lua:2: sleep(seconds): seconds must be a finite number; got Infinity'],
    ['sleep(1, 2)', 'nap.lua:2: sleep(seconds) takes at most 1 argument; got 2'],
    ['sleep_until(os_time)', 'nap.lua:2: sleep_until(epoch_seconds): epoch_seconds must be a number; got nothing'],
    [
      'sleep_until(4102444800 * 10)',
      expect.stringMatching(
        /^nap\.lua:2: sleep_until\(epoch_seconds\): at most 366 days ahead; 41024448000 is \d+ days away$/,
      ),
    ],
  ])('%s is a Lua error at its line', (line, message) => {
    expect(at(line)).toEqual({ kind: 'error', message });
  });

  it("a pcall catches the error: it is the script's to handle", () => {
    const w = oneThread('function workflow(prompt)\n  local ok, e = pcall(sleep, -5)\n  return e\nend\n', 'nap.lua');
    expect(w.start('')).toEqual({ kind: 'done', value: 'sleep(seconds): seconds must be 0 or more; got -5' });
  });

  it('the fingerprint leaves the seconds out: the due time is recorded, so other seconds replay the same call', () => {
    expect(fingerprint({ type: 'sleep', seconds: 60 })).toBe('sleep()');
    expect(matchesRecord('sleep()', { type: 'sleep', seconds: 5 })).toBe(true);
    expect(matchesRecord('sleep()', { type: 'sleep_until', until: 5 })).toBe(false);
    expect(callOf({ type: 'sleep' }).describe({ type: 'sleep', seconds: 60 })).toBe('sleep(60)');
  });
});
