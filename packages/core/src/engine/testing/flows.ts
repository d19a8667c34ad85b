import { afterEach } from 'vitest';
import { newFlow } from './flow.js';
import type { Script } from './scripted-runner.js';
import type { ScriptedWorld } from './scripted-ports.js';

/**
 * newFlow for one test file: every world it makes is closed after its test, and `start`
 * takes the body of `workflow(prompt)` rather than a whole file.
 */
export function flowsClosedAfterEach(prefix: string) {
  const worlds: ScriptedWorld[] = [];
  afterEach(() => {
    for (const w of worlds.splice(0)) w.store.close();
  });
  return (script: Script = {}) => {
    const f = newFlow(prefix, script);
    worlds.push(f.world);
    return { ...f, start: (body: string) => f.start(`function workflow(prompt)\n${body}\nend\n`) };
  };
}
