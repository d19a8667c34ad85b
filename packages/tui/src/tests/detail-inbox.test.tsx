import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { KEYS, renderTui } from '../test-utils/render.js';
import { testWorld, type TestWorld } from '../test-utils/world.js';
import { DETAIL_CALLS } from '../screens/detail/use-detail-state.js';

let w: TestWorld;
afterEach(() => w?.dispose());

/** A run waiting in two parallel branches (a reviewer's review, a pause) after one finished. */
async function parallelRun() {
  w = testWorld({
    architect: [{ summary: 'planned', costUsd: 0.1 }],
    coder: [{ summary: 'built', costUsd: 0.5 }],
    reviewer: [{ status: 'NEEDS_HUMAN', reason: 'Is this secure?', awaiting: 'review' }],
  });
  const id = await w.run(
    `run("architect")
  local a, b, c = parallel(
    function() return run("coder", "a").summary end,
    function() return run("reviewer", "b").status end,
    function() return pause("Run the load tests yourself") end)
  return a`,
    'add login',
  );
  // The reviewer's stream-json log, as Claude Code writes it.
  mkdirSync(join(w.dir, 'runs', String(id)), { recursive: true });
  writeFileSync(
    join(w.dir, 'runs', String(id), '2-2-1.reviewer.1.stdout.log'),
    [
      { type: 'system', subtype: 'init' },
      { type: 'assistant', message: { content: [{ type: 'text', text: 'Reading the diff\nline two' }] } },
      {
        type: 'assistant',
        message: { content: [{ type: 'tool_use', name: 'Read', input: { file_path: 'src/login.ts' } }] },
      },
      { type: 'user', message: { content: [{ type: 'tool_result', content: 'secret' }] } },
      { type: 'result', subtype: 'success', result: 'Is this secure?', total_cost_usd: 0 },
    ]
      .map((e) => JSON.stringify(e))
      .join('\n'),
  );
  writeFileSync(join(w.dir, 'runs', String(id), '2-2-1.reviewer.1.stderr.log'), 'warning: slow disk\n');
  w.later(100);
  return id;
}

describe('the run detail', () => {
  it("shows status, reason, waiting time, the calls with parallel branches indented, the picked call's log, the audit trail", async () => {
    await parallelRun();
    const t = renderTui(w, { rows: 26 });
    await t.ready();
    await t.press(KEYS.enter);
    await t.until(() => expect(t.lines()[0]).toBe('Run 1: flow — add login'));
    expect(t.lines()).toEqual([
      'Run 1: flow — add login',
      'Status: ⏸ waiting for a person · 2 asks',
      'Reason: reviewer asks (review): Is this secure?',
      `Waiting: 1m 40s · Cost: $0.60 · Age: 1m · Workspace: ${w.dir}`,
      'Executions',
      '  #1 architect                 ✓ 0s               $0.10 DONE: planned',
      '  #2 parallel                  ● running 1m 40s       -',
      '    #2/1/1 coder               ✓ 0s               $0.50 DONE: built',
      '›   #2/2/1 reviewer            ⏸ waiting (1m)         - Is this secure?',
      '    #2/3/1 pause               ⏸ waiting (1m)         - Run the load tests yourself',
      '',
      '',
      '',
      '',
      '#2/2/1 reviewer — Is this secure?',
      '  Read src/login.ts',
      '  result: done — Is this secure?',
      '  stderr: warning: slow disk',
      'Audit trail',
      // The branches' events come in the order they ran in.
      expect.stringMatching(/^ {3}1m ago {2}(waiting|execution_finished) \[2\/\d\/1\] by shop \(engine\): /),
      expect.stringMatching(/^ {3}1m ago {2}(waiting|execution_finished) \[2\/\d\/1\] by shop \(engine\): /),
      '   1m ago  suspended by shop (engine)',
      '',
      '',
      '[↑↓] call [c] continue [A/R] answer [m] claim [s] stop [o] editor [Esc] back [?] keys [q] quit',
    ]);
    await t.press('j');
    await t.until(() => expect(t.lines()[9]).toMatch(/^› {3}#2\/3\/1 pause/));
    expect(t.lines().slice(14, 16)).toEqual([
      '#2/3/1 pause — Run the load tests yourself',
      '  (pause calls have no log)',
    ]);
    await t.press('k', 'k', 'k');
    await t.until(() => expect(t.lines()[6]).toMatch(/^› #2 parallel/));
    await t.press(KEYS.esc);
    await t.until(() => expect(t.lines()[0]).toBe('Shop runs — 1 run · 1 waiting'));
  });
});

describe('the run detail of a long run', () => {
  it('reads the latest calls and every open one, and says how many earlier ones shop log has', async () => {
    w = testWorld();
    // Call 1 is the parallel, 1/1/1 a pause that waits, 1/2/1 … 1/2/503 recorded now() calls.
    const id = await w.run(
      `parallel(function() return pause("Hold on?").continue end, function() for i = 1, ${DETAIL_CALLS + 3} do now() end end)`,
      'long',
    );
    const t = renderTui(w, { rows: 26 });
    await t.ready();
    await t.press(KEYS.enter);
    await t.until(() => expect(t.lines()[4]).toBe(`Executions (2/${DETAIL_CALLS + 2} · 3 earlier: shop log ${id})`));
    expect(t.lines().slice(5, 8)).toEqual([
      expect.stringMatching(/^ {2}#1 parallel +● running/),
      expect.stringMatching(/^› {3}#1\/1\/1 pause +⏸ waiting/),
      expect.stringMatching(/^ {4}#1\/2\/4 now +✓/),
    ]);
    await t.press('G');
    await t.until(() =>
      expect(t.lines()[4]).toBe(`Executions (${DETAIL_CALLS + 2}/${DETAIL_CALLS + 2} · 3 earlier: shop log ${id})`),
    );
  });
});

describe('the inbox', () => {
  it('lists every pending ask across runs, oldest first, with how long each has waited; Enter opens its call', async () => {
    await parallelRun();
    const second = await w.run('return pause("Deploy?")', 'ship it');
    w.later(30);
    const t = renderTui(w, { rows: 10 });
    await t.ready();
    await t.press('i');
    await t.until(() => expect(t.lines()[0]).toBe('Inbox — 3 pending asks, oldest first'));
    expect(t.lines()).toEqual([
      'Inbox — 3 pending asks, oldest first',
      '  RUN    SPEC         CALL     FROM         AWAITING    QUESTION               CLAIMED       WAITED',
      '› 1      flow         2/2/1    reviewer     review      Is this secure?                      2m 10s',
      '  1      flow         2/3/1    pause        checkpoint  Run the load tests yo…               2m 10s',
      `  ${second}      flow         1        pause        checkpoint  Deploy?                                 30s`,
      '',
      '',
      '',
      '[↑↓] move [Enter] open [c] continue [A/R] approve/reject [m] claim [Esc] runs [?] keys [q] quit',
    ]);
    await t.press('j', KEYS.enter);
    await t.until(() => expect(t.lines()[0]).toBe('Run 1: flow — add login'));
    expect(t.lines().find((l) => l.startsWith('›'))).toMatch(/^› {3}#2\/3\/1 pause/);
    await t.press(KEYS.esc);
    await t.until(() => expect(t.lines()[0]).toBe('Inbox — 3 pending asks, oldest first'));
    await t.press(KEYS.esc);
    await t.until(() => expect(t.lines()[0]).toBe('Shop runs — 2 runs · 2 waiting'));
  });
});
