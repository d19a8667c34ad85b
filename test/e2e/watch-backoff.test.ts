import Database from 'better-sqlite3';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { killLeftovers, lines, makeProject, runId, startWorker, stopWorker, until } from './harness.js';

afterEach(killLeftovers);

// The build's result is kept: replay reads a recorded result only where Lua takes it.
const GATE =
  'function workflow(prompt)\n  local built = run("coder", "build " .. prompt)\n  pause("Ship " .. prompt .. "?")\n  return "shipped " .. prompt\nend\n';

describe('shop watch and a run that keeps failing on resume', () => {
  it('backs off from it, then fails it with the reason (in the trail), while a healthy run completes meanwhile', async () => {
    const p = makeProject();
    const clock = join(p.dir, 'clock');
    writeFileSync(clock, '0');
    p.env.SHOP_CLOCK_FILE = clock;
    p.write('workflows/gate.lua', GATE);
    const bad = runId(p.shop(['run', 'gate', 'bad']));
    const good = runId(p.shop(['run', 'gate', 'good']));
    const w = await startWorker(p);
    await until('both runs held', () =>
      [bad, good].every((id) => w.output().includes(`run ${id} (gate): held here while it waits for a person`)),
    );

    // Run `bad` gets an answer while a result it replays no longer reads (a damaged store): every
    // resume throws at that call, and the run stays held by the worker.
    const db = new Database(join(p.dir, '.shop', 'shop.db'));
    db.transaction(() => {
      db.prepare("UPDATE executions SET result = '{broken' WHERE run_id = ? AND call_key = '1'").run(bad);
      db.prepare(
        "INSERT INTO answers (run_id, call_key, ask, verdict, status, message, decisions, responder, channel, answered_at) VALUES (?, '2', 1, 'approved', NULL, NULL, NULL, 'tester', 'cli', ?)",
      ).run(bad, Date.now());
    })();
    const failing = new RegExp(`^run ${bad} \\(gate\\): .*JSON.*; trying again in (\\d+) s$`, 'm');
    await until('the first failed resume', () => failing.test(w.output()));

    // The worker goes on with the others: run `good` is answered and completes.
    expect(p.shop(['approve', String(good)]).code).toBe(0);
    await until('the healthy run to complete', () =>
      w.output().includes(`run ${good} (gate) completed: "shipped good"`),
    );

    // Time passes (the shared clock file): each retry comes later, until the worker gives up.
    let ahead = 0;
    await until(
      'the worker to give up',
      () => {
        ahead += 120;
        writeFileSync(clock, String(ahead));
        return w.output().includes(`run ${bad} (gate) failed: shop watch could not resume it 5 times: `);
      },
      30_000,
    );
    const tries = lines(w.output()).filter((l) => l.startsWith(`run ${bad} (gate): `) && failing.test(l));
    expect(tries.map((l) => Number(failing.exec(l)![1]))).toEqual([2, 4, 8, 16]);

    const run = db.prepare('SELECT status, reason, owner_token FROM runs WHERE id = ?').get(bad) as {
      status: string;
      reason: string;
      owner_token: string | null;
    };
    expect(run.status).toBe('failed');
    expect(run.reason).toMatch(/^shop watch could not resume it 5 times: .*JSON/);
    const last = db
      .prepare('SELECT type, actor, data FROM events WHERE run_id = ? ORDER BY id DESC LIMIT 1')
      .get(bad) as { type: string; actor: string; data: string };
    expect(last).toMatchObject({ type: 'failed', actor: 'shop' });
    expect(JSON.parse(last.data)).toMatchObject({ reason: run.reason, resume_failures: 5 });
    db.close();
    expect(await stopWorker(w)).toBe(0);
  });
});
