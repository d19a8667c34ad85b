import { describe, expect, it } from 'vitest';
import { ActionJsonSchema, InboxRowJsonSchema, RunJsonSchema } from '../../packages/core/src/operations/shapes.js';
import { lines, makeProject, runId, until, type Project } from './harness.js';

/** Issue 14, Why 1: an answer lands only on the ask a person saw, named by its handle. */
const LOCAL = '\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d [+-]\\d\\d:\\d\\d';

/** feature.lua as shipped, the deployer asking first which database, then whether to go to prod (same call, two asks). */
function feature(): Project {
  const p = makeProject();
  p.scenario({
    agents: {
      architect: [{ status: 'DONE', summary: 'plan' }],
      coder: [{ status: 'DONE', summary: 'code' }],
      reviewer: [{ status: 'APPROVED', summary: 'fine' }],
      deployer: [
        { status: 'NEEDS_HUMAN', reason: 'Which database?' },
        { status: 'NEEDS_HUMAN', reason: 'Deploy to prod?', awaiting: 'approval' },
        { status: 'DONE', summary: 'shipped' },
      ],
    },
  });
  return p;
}

describe('ask handles', () => {
  it('the reproduced double approve: the second approve by handle exits 6 naming the first answer and the open ask; nothing moves on', () => {
    const p = feature();
    const run = p.shop(['run', 'feature', 'x']);
    expect(run.code).toBe(3);
    const id = runId(run);
    expect(lines(run.stdout).slice(-4)).toEqual([
      `run ${id} is waiting for a person (checkpoint): the workflow asks: Approve deployment?`,
      `  decide here:  shop continue ${id}.4`,
      `  approve:      shop approve ${id}.4`,
      `  stop it:      shop reject ${id}.4 "why"`,
    ]);
    const approve = p.shop(['approve', `${id}.4`, '--by', 'bob']);
    expect(approve.code).toBe(3);
    expect(lines(approve.stdout)[0]).toBe(`run ${id} call 4 (${id}.4): answered approved by bob`);
    expect(lines(approve.stdout).slice(-4)).toEqual([
      `run ${id} is waiting for a person (input): deployer asks: Which database?`,
      `  talk to the agent:  shop continue ${id}.5`,
      `  answer it:          shop answer ${id}.5 "…"`,
      `  reject:             shop reject ${id}.5 "feedback"   (returns REJECTED to the workflow)`,
    ]);
    const answer = p.shop(['answer', `${id}.5`, 'pg', '--by', 'bob']);
    expect(answer.code).toBe(3);
    expect(lines(answer.stdout).slice(-4)).toEqual([
      `run ${id} is waiting for a person (approval): deployer asks: Deploy to prod?`,
      `  talk to the agent:  shop continue ${id}.5.2`,
      `  approve:            shop approve ${id}.5.2 [--message "…"]   (returns APPROVED to the workflow)`,
      `  reject:             shop reject ${id}.5.2 "feedback"   (goes back to the agent)`,
    ]);

    // The same approve again (shell history): the pause was answered; the deploy ask is not touched.
    const again = p.shop(['approve', `${id}.4`, '--by', 'carol']);
    expect(again.code).toBe(6);
    expect(again.stdout).toBe('');
    expect(lines(again.stderr)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^shop: ${id}\\.4 \\(run ${id} call 4\\) was already answered approved by bob \\(cli\\) at ${LOCAL}; open now: ${id}\\.5\\.2 \\(deployer asks: Deploy to prod\\?\\)$`,
        ),
      ),
    ]);
    // An answered earlier ask of the same call is refused the same way: it never moves to the newer ask.
    const stale = p.shop(['answer', `${id}.5`, 'mysql']);
    expect(stale.code).toBe(6);
    expect(lines(stale.stderr)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^shop: ${id}\\.5 \\(run ${id} call 5\\) was already answered by bob \\(cli\\) at ${LOCAL}; open now: ${id}\\.5\\.2 \\(deployer asks: Deploy to prod\\?\\)$`,
        ),
      ),
    ]);
    expect(p.status(id)).toMatchObject({ status: 'waiting_human', pending: { key: '5', ask: 2, handle: `${id}.5.2` } });

    // By bare id off a terminal it still works for scripts, and says which ask it answered.
    const bare = p.shop(['approve', String(id), '--by', 'dave']);
    expect(bare.code).toBe(0);
    expect(lines(bare.stdout).slice(0, 2)).toEqual([
      `run ${id} call 5 (${id}.5.2): answered approved by dave`,
      `  (run ${id}'s one open ask: ${id}.5.2 — deployer asks (approval): Deploy to prod?)`,
    ]);
    expect(p.status(id)).toMatchObject({ status: 'completed' });
  });

  it('a handle of an ask that never was is not found (5); a malformed one or a bad run id is bad input (2)', () => {
    const p = feature();
    const id = runId(p.shop(['run', 'feature', 'x']));
    const never = p.shop(['approve', `${id}.4.3`]);
    expect(never.code).toBe(5);
    expect(lines(never.stderr)).toEqual([
      `shop: no ask ${id}.4.3: call 4 has asked 1 time; open now: ${id}.4 (the workflow asks: Approve deployment?)`,
    ]);
    for (const bad of ['0x3', '1e3', `${id}.`, `${id}.4.0`, `${id}..4`]) {
      const r = p.shop(['approve', bad]);
      expect(r.code, bad).toBe(2);
      expect(lines(r.stderr), bad).toEqual([
        `shop: "${bad}" is not a run id or an ask handle (a run id such as 33, or a handle such as 33.4 as shop inbox shows it)`,
      ]);
    }
    for (const bad of ['0x3', '1e3']) {
      const r = p.shop(['status', bad]);
      expect(r.code, bad).toBe(2);
      expect(lines(r.stderr)).toEqual([`shop: "${bad}" is not a run id (a positive number, as shown by shop list)`]);
    }
    // A handle copied from shop inbox into a command that takes a run: it says which run.
    for (const cmd of ['status', 'log', 'stop', 'resume']) {
      const r = p.shop([cmd, `${id}.4`]);
      expect(r.code, cmd).toBe(2);
      expect(lines(r.stderr), cmd).toEqual([
        `shop: "${id}.4" is an ask's handle (run ${id}, call 4); shop ${cmd} takes the run id: shop ${cmd} ${id}`,
      ]);
    }
    const both = p.shop(['approve', `${id}.4`, '--call', '4']);
    expect(both.code).toBe(2);
    expect(lines(both.stderr)).toEqual([`shop: "${id}.4" is a handle and already names the call: drop --call`]);
    // --call K is the handle <id>.K: the same ask, exactly.
    expect(p.shop(['approve', String(id), '--call', '4', '-m', 'go']).code).toBe(3);
    const late = p.shop(['approve', String(id), '--call', '4']);
    expect(late.code).toBe(6);
    expect(late.stderr).toMatch(new RegExp(`open now: ${id}\\.5 \\(deployer asks: Which database\\?\\)\\n$`));
  });

  it('inbox, status --json, and --json of the answering commands carry the handle', () => {
    const p = feature();
    const id = runId(p.shop(['run', 'feature', 'x']));
    p.shop(['approve', `${id}.4`]);
    p.shop(['answer', `${id}.5`, 'pg']);
    const inbox = InboxRowJsonSchema.array().parse(JSON.parse(p.shop(['inbox', '--json']).stdout));
    expect(inbox).toMatchObject([
      {
        run: id,
        key: '5',
        ask: 2,
        handle: `${id}.5.2`,
        answer_with: [
          `shop continue ${id}.5.2`,
          `shop approve ${id}.5.2 [--message "…"]`,
          `shop reject ${id}.5.2 "feedback"`,
        ],
        suggestions: [
          { verb: 'continue', handle: `${id}.5.2`, needs_text: 'none' },
          { verb: 'approve', handle: `${id}.5.2`, needs_text: 'optional', effect: 'returns APPROVED to the workflow' },
          {
            verb: 'reject',
            handle: `${id}.5.2`,
            needs_text: 'required',
            placeholder: 'feedback',
            effect: 'goes back to the agent',
          },
        ],
      },
    ]);
    const text = lines(p.shop(['inbox']).stdout);
    expect(text[1]).toMatch(new RegExp(`shop continue ${id}\\.5\\.2$`));

    const r = p.shop(['approve', `${id}.5.2`, '--json', '--by', 'erin']);
    expect(r.code).toBe(0);
    const doc = ActionJsonSchema.parse(JSON.parse(r.stdout));
    expect(doc).toMatchObject({
      command: 'approve',
      run: id,
      status: 'completed',
      exit_code: 0,
      asks: [],
      answered: {
        handle: `${id}.5.2`,
        key: '5',
        ask: 2,
        question: 'Deploy to prod?',
        verdict: 'approved',
        responder: 'erin',
        channel: 'cli',
      },
    });
    expect(r.stderr).toContain(`run ${id} call 5 (${id}.5.2): answered approved by erin`);
  });
});

describe('the answering CLI (issue 14, Why 12)', () => {
  const GATE =
    'function workflow(p) local a = pause("Ship it?") return tostring(a.continue) .. "|" .. tostring(a.message) end\n';

  it('shop run --wait prints the commands that answer each ask, with its handle, while it waits', async () => {
    const p = makeProject();
    p.write('workflows/gate.lua', GATE);
    const bg = p.spawnShop(['run', '--wait', 'gate']);
    try {
      await until('the hint', () => bg.output().includes('approve:'));
      const id = runId(bg.output());
      await until('all hints', () => bg.output().includes('stop it:'));
      expect(lines(bg.output()).slice(-4)).toEqual([
        '  [1] waiting for a person: Ship it?',
        `    decide here:  shop continue ${id}.1`,
        `    approve:      shop approve ${id}.1`,
        `    stop it:      shop reject ${id}.1 "why"`,
      ]);
      expect(p.shop(['approve', `${id}.1`, '-m', 'go']).code).toBe(0);
      expect(await bg.exited).toBe(0);
      expect(bg.output()).toContain(`run ${id} completed: "true|go"`);
    } finally {
      if (bg.child.exitCode === null) bg.child.kill('SIGKILL');
    }
  });

  /**
   * A `shop run --wait` driving the gate, frozen (SIGSTOP) while `act` answers and looks: an
   * answer recorded then stays unconsumed, as it is until a live driver picks it up. The
   * driver is let go afterwards and must complete the run.
   */
  async function withFrozenDriver(act: (p: ReturnType<typeof makeProject>, id: number) => void): Promise<void> {
    const p = makeProject();
    p.write('workflows/gate.lua', GATE);
    const bg = p.spawnShop(['run', '--wait', 'gate']);
    try {
      await until('the hint', () => bg.output().includes('stop it:'));
      const id = runId(bg.output());
      bg.child.kill('SIGSTOP');
      try {
        act(p, id);
      } finally {
        bg.child.kill('SIGCONT');
      }
      expect(await bg.exited).toBe(0);
    } finally {
      if (bg.child.exitCode === null) bg.child.kill('SIGKILL');
    }
  }

  it('--json of an answer left to the live driver does not list the ask just answered among the asks open now', async () => {
    await withFrozenDriver((p, id) => {
      const r = p.shop(['approve', `${id}.1`, '-m', 'go', '--json']);
      expect(r.code).toBe(0);
      expect(r.stderr).toContain('picks up the answer itself');
      const doc = ActionJsonSchema.parse(JSON.parse(r.stdout));
      expect(doc).toMatchObject({ command: 'approve', run: id, answered: { handle: `${id}.1`, verdict: 'approved' } });
      expect(doc.asks).toEqual([]);
    });
  });

  it('an ask answered but not yet taken in by its live driver is offered nowhere: status, inbox, list --waiting and --json', async () => {
    await withFrozenDriver((p, id) => {
      expect(p.shop(['approve', `${id}.1`, '-m', 'go']).code).toBe(0);
      expect(p.shop(['status', String(id)]).stdout).not.toContain(`shop approve ${id}.1`);
      expect(p.status(id).pending).toBeNull();
      expect(p.shop(['inbox']).stdout).not.toContain(`${id}.1`);
      expect(JSON.parse(p.shop(['inbox', '--json']).stdout)).toEqual([]);
      expect(p.shop(['list', '--waiting']).stdout).not.toContain(`${id}.1`);
    });
  });

  it('a responder name with a newline or an escape (--by, SHOP_USER) is refused (exit 2), nothing recorded: it would forge lines', () => {
    const p = makeProject();
    p.write('workflows/gate.lua', GATE);
    const id = runId(p.shop(['run', 'gate']));
    const byFlag = p.shop(['approve', `${id}.1`, '--by', 'ann\nrun 1 completed: "true|go"']);
    expect(byFlag.code).toBe(2);
    expect(lines(byFlag.stderr)).toEqual([
      'shop: --by "ann\\x0arun 1 completed: "true|go"" holds a control character (a newline, an escape…); give a plain name',
    ]);
    const env = p.shop(['approve', `${id}.1`], { env: { SHOP_USER: 'ann\u001b]0;x\u0007' } });
    expect(env.code).toBe(2);
    expect(lines(env.stderr)).toEqual([
      'shop: SHOP_USER "ann\\x1b]0;x\\x07" holds a control character (a newline, an escape…); give a plain name',
    ]);
    expect(p.status(id).status).toBe('waiting_human');
    const long = p.shop(['approve', `${id}.1`, '--by', 'a'.repeat(201)]);
    expect(long.code).toBe(2);
    expect(long.stderr).toContain('is longer than 200 characters');
    expect(p.shop(['approve', `${id}.1`, '--by', 'ann']).code).toBe(0);
  });

  it('-m is --message for approve, reject and signal', () => {
    const p = makeProject();
    p.write('workflows/gate.lua', GATE);
    const a = runId(p.shop(['run', 'gate']));
    const r = p.shop(['approve', `${a}.1`, '-m', 'lgtm']);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    expect(p.status(a).result).toBe('true|lgtm');
    const b = runId(p.shop(['run', 'gate']));
    expect(p.shop(['reject', `${b}.1`, '-m', 'not now']).code).toBe(0);
    expect(p.status(b).result).toBe('false|not now');
    const c = runId(p.shop(['run', 'gate']));
    expect(p.shop(['signal', `${c}.1`, '--status', 'CONTINUE', '-m', 'scripted']).code).toBe(0);
    expect(p.status(c).result).toBe('true|scripted');
  });

  it('acting commands take --json: one document on stdout (run, ask answered, state, open asks, exit code unchanged)', () => {
    const p = makeProject();
    p.write('workflows/gate.lua', GATE);
    const run = p.shop(['run', 'gate', '--json']);
    expect(run.code).toBe(3);
    const started = ActionJsonSchema.parse(JSON.parse(run.stdout));
    expect(started).toMatchObject({
      command: 'run',
      status: 'waiting_human',
      exit_code: 3,
      answered: null,
      asks: [{ key: '1', handle: `${started.run}.1` }],
    });
    expect(run.stderr).toContain(`run ${started.run} started (gate)`);
    const id = started.run;

    const signal = p.shop(['signal', `${id}.1`, '--status', 'STOP', '-m', 'no', '--json']);
    expect(signal.code).toBe(0);
    expect(ActionJsonSchema.parse(JSON.parse(signal.stdout))).toMatchObject({
      command: 'signal',
      run: id,
      status: 'completed',
      result: 'false|no',
      exit_code: 0,
      asks: [],
      answered: {
        handle: `${id}.1`,
        key: '1',
        ask: 1,
        question: 'Ship it?',
        status: 'STOP',
        message: 'no',
        channel: 'signal',
      },
    });

    const other = runId(p.shop(['run', 'gate']));
    const stop = p.shop(['stop', String(other), '--reason', 'enough', '--json']);
    expect(stop.code).toBe(0);
    expect(ActionJsonSchema.parse(JSON.parse(stop.stdout))).toMatchObject({
      command: 'stop',
      run: other,
      status: 'stuck',
      reason: 'enough',
      exit_code: 0,
    });
    const resume = p.shop(['resume', String(other), '--json']);
    expect(ActionJsonSchema.parse(JSON.parse(resume.stdout))).toMatchObject({
      command: 'resume',
      run: other,
      status: 'stuck',
      exit_code: resume.code,
    });

    const piped = runId(p.shop(['run', 'gate']));
    const cont = p.shop(['continue', `${piped}.1`, '--json'], { input: 'y\n\n' });
    expect(cont.code).toBe(0);
    expect(ActionJsonSchema.parse(JSON.parse(cont.stdout))).toMatchObject({
      command: 'continue',
      run: piped,
      status: 'completed',
      answered: { handle: `${piped}.1`, status: 'CONTINUE', channel: 'continue' },
    });
  });

  it('a pause is "pause" in the AGENT column of list, inbox and status (the store and --json keep _checkpoint)', () => {
    const p = makeProject();
    p.write('workflows/gate.lua', GATE);
    const id = runId(p.shop(['run', 'gate']));
    expect(lines(p.shop(['list']).stdout)[1].split(/\s{2,}/)[3]).toBe('pause');
    expect(lines(p.shop(['inbox']).stdout)[1].split(/\s{2,}/)[4]).toBe('pause');
    expect(
      lines(p.shop(['status', String(id)]).stdout)
        .find((l) => l.startsWith('#1'))!
        .split(/\s{2,}/)[1],
    ).toBe('pause');
    expect(RunJsonSchema.array().parse(JSON.parse(p.shop(['list', '--json']).stdout))[0].agent).toBe('_checkpoint');
  });
});
