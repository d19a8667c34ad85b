import { afterEach, describe, expect, it } from 'vitest';
import { KEYS, renderTui } from '../test-utils/render.js';
import { testWorld, type TestWorld } from '../test-utils/world.js';

let w: TestWorld;
afterEach(() => w?.dispose());

/** Six runs, one of each status, a few seconds apart. */
async function sixRuns() {
  w = testWorld({
    coder: [{ status: 'NEEDS_HUMAN', reason: 'Which database?' }],
    architect: [{ summary: 'planned', costUsd: 0.12 }],
  });
  await w.run('return run("architect").summary');
  w.later(90);
  await w.run('run("coder")');
  w.later(30);
  await w.run('stuck("no way")');
  await w.run('error("boom")');
  await w.start('run("coder")');
  await w.working('architect', 'Edit src/login.ts');
  w.later(5);
}

const runRows = (lines: string[]) => lines.filter((l) => /^[› ] \d/.test(l));

describe('the run list', () => {
  it('shows id, spec, status icon, agent and what it does or waits for, age and cost, newest first', async () => {
    await sixRuns();
    const t = renderTui(w, { rows: 12 });
    await t.ready();
    expect(t.lines()).toEqual([
      'Shop runs — 6 runs · 1 waiting',
      '  ID     SPEC         STATUS         AGENT        ACTIVITY / WAITING FOR                AGE    COST',
      '› 6      flow         ● running      architect    Edit src/login.ts                      5s       -',
      '  5      flow         ⚠ interrupted  -            its driver is gone; resume with: sh…   5s       -',
      '  4      flow         ✗ failed       -            flow.lua:2: boom                       5s       -',
      '  3      flow         ■ stuck        -            no way                                 5s       -',
      '  2      flow         ⏸ waiting      coder        Which database?                       35s       -',
      '  1      flow         ✓ completed    -            planned                                2m   $0.12',
      '',
      '',
      '[↑↓] move [Enter] open [/] filter [a] active [i] inbox [c] continue [A/R] answer [?] keys [q] quit',
    ]);
  });

  it('moves with ↑/↓ and j/k, opens a run with Enter, comes back with Esc', async () => {
    await sixRuns();
    const t = renderTui(w, { rows: 12 });
    await t.ready();
    await t.press('j', 'j', KEYS.down, 'k');
    await t.until(() => expect(t.lines()[4]).toMatch(/^› 4 +flow +✗ failed/));
    await t.press(KEYS.up, KEYS.up, KEYS.up, KEYS.up);
    await t.until(() => expect(t.lines()[2]).toMatch(/^› 6 /));
    await t.press('j', KEYS.enter);
    await t.until(() => expect(t.lines()[0]).toBe('Run 5: flow — the task'));
    await t.press(KEYS.esc);
    await t.until(() => expect(t.lines()[3]).toMatch(/^› 5 +flow +⚠ interrupted/));
  });

  it('filters with / (live as typed; Enter keeps it, Esc clears it)', async () => {
    await sixRuns();
    const t = renderTui(w, { rows: 12 });
    await t.ready();
    await t.press('/', 'd', 'a', 't', 'a');
    await t.until(() =>
      expect(runRows(t.lines())).toEqual([
        '› 2      flow         ⏸ waiting      coder        Which database?                       35s       -',
      ]),
    );
    await t.until(() => expect(t.lines()).toContain('/data▏'));
    await t.press(KEYS.enter);
    await t.until(() => expect(t.lines()[0]).toBe('Shop runs — 1 of 6 runs · 1 waiting · filter: data'));
    await t.press(KEYS.esc);
    await t.until(() => expect(t.lines()[0]).toBe('Shop runs — 6 runs · 1 waiting'));
    await t.press('/', 'x', 'y', 'z', KEYS.enter);
    await t.until(() =>
      expect(t.lines().slice(0, 3)).toEqual([
        'Shop runs — 0 of 6 runs · 1 waiting · filter: xyz',
        expect.stringMatching(/^ {2}ID/),
        '  no runs match',
      ]),
    );
  });

  it('shows active runs only with a (running, interrupted, waiting), and combines it with the filter', async () => {
    await sixRuns();
    const t = renderTui(w, { rows: 12 });
    await t.ready();
    await t.press('a');
    await t.until(() => expect(t.lines()[0]).toBe('Shop runs — 3 of 6 runs · 1 waiting · active only'));
    expect(runRows(t.lines()).map((l) => l.slice(0, 36).trimEnd())).toEqual([
      '› 6      flow         ● running',
      '  5      flow         ⚠ interrupted',
      '  2      flow         ⏸ waiting',
    ]);
    await t.press('/', 'i', KEYS.enter);
    await t.until(() => expect(t.lines()[0]).toBe('Shop runs — 3 of 6 runs · 1 waiting · filter: i · active only'));
    await t.press('a');
    await t.until(() => expect(t.lines()[0]).toBe('Shop runs — 4 of 6 runs · 1 waiting · filter: i'));
    expect(runRows(t.lines()).map((l) => l.slice(0, 8).trim())).toEqual(['› 6', '5', '4', '2']);
  });

  it('renders only the window of a long list, and scrolls it with the cursor', async () => {
    w = testWorld();
    const owner = { token: 't', host: 'test-host', pid: 1, pidStart: null };
    for (let i = 1; i <= 200; i++) {
      await w.store.createRun({
        spec: `spec-${i}`,
        workflowPath: 'w.lua',
        workflowHash: null,
        prompt: 'p',
        workspace: w.dir,
        branch: null,
        seed: 1,
        owner,
        leaseMs: 0,
        actor: 'tester',
      });
    }
    const t = renderTui(w, { rows: 11 });
    await t.ready();
    const ids = () => runRows(t.lines()).map((l) => Number(l.slice(2, 8)));
    expect(ids()).toEqual([200, 199, 198, 197, 196]);
    await t.press('G');
    await t.until(() => expect(ids()).toEqual([5, 4, 3, 2, 1]));
    expect(t.lines()[0]).toBe('Shop runs — 200 runs · 200/200');
    expect(t.lines()[6]).toMatch(/^› 1 +spec-1 /);
    await t.press('k', 'k', 'k', 'k', 'k');
    await t.until(() => expect(ids()).toEqual([6, 5, 4, 3, 2]));
    await t.press('g');
    await t.until(() => expect(ids()).toEqual([200, 199, 198, 197, 196]));
  });

  it('says how to start when there are no runs; ? shows the keys, any key closes them; q quits', async () => {
    w = testWorld();
    const t = renderTui(w, { rows: 8 });
    await t.ready();
    expect(t.lines()[2]).toBe('  no runs yet; start one with: shop run <workflow> [prompt…]');
    await t.press('?');
    await t.until(() => expect(t.lines()[0]).toBe('Keys'));
    expect(t.lines()).toContain("  c        continue: open the agent's Claude session, or decide a pause");
    await t.press('x');
    await t.until(() => expect(t.lines()[0]).toBe('Shop runs — 0 runs'));
    await t.press('q');
    await new Promise((r) => setTimeout(r, 50));
    const frames = t.frames.length;
    await t.press('?');
    expect(t.frames.length).toBe(frames); // unmounted: nothing renders after q
  });
});
