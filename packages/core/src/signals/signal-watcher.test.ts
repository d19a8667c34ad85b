import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SignalWatcher } from './signal-watcher.js';
import { wakeOwners } from './wake.js';
import { tempDir } from '../testing/temp-dir.js';
import { until } from '../testing/until.js';

const dirs: string[] = [];
const watchers: SignalWatcher[] = [];
afterEach(async () => {
  for (const w of watchers.splice(0)) await w.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function folder(): string {
  const d = tempDir('shop-signals-');
  dirs.push(d);
  return join(d, 'signals');
}

/** Whether `p` settles within `ms`. */
async function within(p: Promise<void>, ms: number): Promise<boolean> {
  return Promise.race([p.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms))]);
}

describe("a worker's signal watcher (answers only)", () => {
  it("is not woken by agents' signal files; an answer's wake-up names its run, and wakes unless the run was taken care of", async () => {
    const dir = folder();
    const answered: number[] = [];
    const w = new SignalWatcher(dir, {
      rescanMs: 0,
      answersOnly: true,
      answered: (runId) => (answered.push(runId), runId === 4),
    });
    watchers.push(w);
    await new Promise((r) => setTimeout(r, 200));
    const next = w.next();
    writeFileSync(join(dir, '9.1.coder.abc.json'), '{"status":"DONE"}');
    wakeOwners(dir, { runId: 4, key: '1/2', ask: 1 });
    // Seen in the order written: once run 4's wake-up is seen, the agent's file (before it) has been too.
    await until("run 4's wake-up to be seen", () => answered.length > 0);
    expect(await within(next, 0)).toBe(false);
    expect(answered).toEqual([4]);
    wakeOwners(dir, { runId: 12, key: '3', ask: 2 });
    expect(await within(next, 2_000)).toBe(true);
    expect(answered).toEqual([4, 12]);
  });

  it('without answersOnly (a run waiting in the foreground) every signal file wakes it', async () => {
    const dir = folder();
    const w = new SignalWatcher(dir, { rescanMs: 0 });
    watchers.push(w);
    await new Promise((r) => setTimeout(r, 200));
    const next = w.next();
    writeFileSync(join(dir, '9.1.coder.abc.json'), '{"status":"DONE"}');
    expect(await within(next, 2_000)).toBe(true);
  });
});
