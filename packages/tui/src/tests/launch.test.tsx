import { EventEmitter } from 'node:events';
import type { EnginePorts } from '@shop/core';
import { afterEach, describe, expect, it } from 'vitest';
import * as launch from '../launch.js';
import { testOps, testWorld, type TestWorld } from '../test-utils/world.js';

let w: TestWorld;
afterEach(() => w?.dispose());

/** A terminal for Ink: a TTY stdin that never types, a stdout keeping what is written. */
function fakeTerminal() {
  const stdin = Object.assign(new EventEmitter(), {
    isTTY: true,
    setRawMode() {},
    setEncoding() {},
    ref() {},
    unref() {},
    pause() {},
    resume() {},
    read: () => null,
  });
  let written = '';
  const stdout = Object.assign(new EventEmitter(), {
    columns: 100,
    rows: 20,
    isTTY: false,
    write: (s: string) => ((written += s), true),
  });
  return { io: { stdin, stdout, stderr: stdout } as never, written: () => written };
}

describe('runTui (what shop tui calls)', () => {
  it("shows an internal error in Ink's error view and returns 1", async () => {
    w = testWorld();
    const store = Object.create(w.store, {
      listRuns: { value: async () => Promise.reject(new Error('disk I/O error')) },
    });
    const broken: EnginePorts = { ...w.world.ports, store };
    const term = fakeTerminal();
    const code = await launch.runTui(
      {
        ops: testOps(w, broken),
        responder: 'ann',
        env: { NO_COLOR: '1' },
        resumeInBackground: () => ({ log: '' }),
        runAttached: async () => ({ code: 0, error: null }),
      },
      term.io,
    );
    expect(code).toBe(1);
    expect(term.written()).toContain('ERROR');
    expect(term.written()).toContain('disk I/O error');
  });
});
