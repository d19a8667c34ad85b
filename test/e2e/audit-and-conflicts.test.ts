import { execFileSync } from 'node:child_process';
import { userInfo } from 'node:os';
import { describe, expect, it } from 'vitest';
import { InboxRowJsonSchema, LogJsonSchema } from '../../packages/core/src/operations/shapes.js';
import { lines, makeProject, runId, shopBin, until, type Project } from './harness.js';
import { Terminal } from './terminal.js';

/** A time as the CLI shows it: local, with its offset. */
const LOCAL = '\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d [+-]\\d\\d:\\d\\d';

/** Who answered what, through which channel; a late answer is a conflict; no file an agent can write answers a pause; the inbox. */
const THREE = `function workflow(p)
  local a = run("coder", "pick a region")
  local b = pause("Deploy?")
  local c = pause{message = "Budget", decisions = { { id = "amount", type = "number", prompt = "How much?", constraints = { min = 1 } } }}
  return a.status .. "|" .. a.summary .. "|" .. tostring(b.continue) .. "|" .. c.answers.amount .. "|" .. c.responder
end
`;
const GUARDED = `function workflow(p)
  run("coder", "build it")
  local b = pause("Deploy?")
  return tostring(b.continue) .. "|" .. b.responder
end
`;

const events = (p: Project, id: number) =>
  LogJsonSchema.parse(JSON.parse(p.shop(['log', String(id), '--json']).stdout)).events;
const answered = (p: Project, id: number) => events(p, id).filter((e) => e.type === 'human_answered');

describe('the audit trail', () => {
  it('three human answers, in order, each with responder and channel; a late answer is a conflict naming the first', () => {
    const p = makeProject();
    p.write('workflows/three.lua', THREE);
    p.scenario({
      agents: {
        coder: [
          { status: 'NEEDS_HUMAN', reason: 'Which region?' },
          { status: 'DONE', summary: 'eu-west' },
        ],
      },
    });
    const run = p.shop(['run', 'three']);
    expect(run.code).toBe(3);
    const id = runId(run);

    const a = p.shop(['answer', String(id), 'eu-west', '--by', 'alice']);
    expect(a.stderr).toBe('');
    expect(a.code).toBe(3);
    expect(a.stdout).toContain(`run ${id} is waiting for a person (checkpoint): the workflow asks: Deploy?`);
    const b = p.shop(['approve', String(id), '--by', 'bob']);
    expect(b.code).toBe(3);
    expect(b.stdout).toContain(`run ${id} is waiting for a person (checkpoint): the workflow asks: Budget`);
    const c = p.shop(['continue', String(id)], { input: '7\n\n\n', env: { SHOP_USER: 'carol' } });
    expect(c.stderr).toBe('');
    expect(c.code).toBe(0);
    expect(p.status(id)).toMatchObject({ status: 'completed', result: 'DONE|eu-west|true|7|carol' });

    const trail = answered(p, id);
    expect(trail.map((e) => [e.key, e.actor, e.channel])).toEqual([
      ['1', 'alice', 'cli'],
      ['2', 'bob', 'cli'],
      ['3', 'carol', 'continue'],
    ]);
    expect(trail[0].data).toMatchObject({ ask: 1, verdict: 'answer', message: 'eu-west' });
    expect(trail[1].data).toMatchObject({ ask: 1, verdict: 'approved' });
    expect(trail[2].data).toMatchObject({ ask: 1, decisions: { amount: { value: 7 } } });
    expect(trail.map((e) => e.id)).toEqual([...trail.map((e) => e.id)].sort((x, y) => x - y));

    const text = lines(p.shop(['log', String(id)]).stdout).filter((l) => l.includes('human_answered'));
    expect(text).toEqual([
      expect.stringMatching(
        / {2}human_answered \[1 coder\] by alice \(cli\) {2}ask=1 verdict="answer" message="eu-west"$/,
      ),
      expect.stringMatching(/ {2}human_answered \[2 _checkpoint\] by bob \(cli\) {2}ask=1 verdict="approved"$/),
      expect.stringMatching(/ {2}human_answered \[3 _checkpoint\] by carol \(continue\) {2}ask=1 decisions=/),
    ]);

    const late = p.shop(['approve', String(id), '--by', 'dave']);
    expect(late.code).toBe(6);
    expect(late.stdout).toBe('');
    const conflict = new RegExp(
      `^shop: ${id}\\.3 \\(run ${id} call 3\\) was already answered with decisions by carol \\(continue\\) at (${LOCAL}); it is completed$`,
    );
    expect(lines(late.stderr)).toEqual([expect.stringMatching(conflict)]);
    // Local time with its offset ("2026-11-23 21:12:45 +01:00"), as Date.parse reads it with a T.
    const when = Date.parse(conflict.exec(late.stderr.trim())![1].replace(' ', 'T').replace(' ', ''));
    expect(Math.abs(when - Date.parse(trail[2].at))).toBeLessThan(1000);
    expect(answered(p, id)).toHaveLength(3);
  });

  it("an agent's ask answered by talking to it (shop continue, in a terminal) is on the trail: who, channel continue", async () => {
    const p = makeProject();
    p.write('workflows/ask.lua', 'function workflow(p) return run("coder", "pick a region").summary end\n');
    p.scenario({ agents: { coder: [{ status: 'NEEDS_HUMAN', reason: 'Which region?' }] } });
    const id = runId(p.shop(['run', 'ask']));
    const term = new Terminal(p, `'${process.execPath}' '${shopBin}' continue ${id} --by dana`);
    try {
      await term.waitFor(/^> ?$/m);
      term.type('eu-west');
      await term.waitFor('reported DONE');
      term.type('/exit');
      expect(await term.waitFor('[exit ')).toContain('[exit 0]');
    } finally {
      term.kill();
    }
    expect(p.status(id).result).toBe("done with the person's answer: eu-west");
    // The agent's new report in dana's session became dana's answer: a row of its own.
    expect(answered(p, id)).toEqual([
      expect.objectContaining({
        key: '1',
        actor: 'dana',
        channel: 'continue',
        data: {
          ask: 1,
          status: 'DONE',
          verdict: null,
          message: "done with the person's answer: eu-west",
          decisions: null,
        },
      }),
    ]);
    const late = p.shop(['approve', String(id), '--by', 'erin']);
    expect(late.code).toBe(6);
    expect(lines(late.stderr)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^shop: ${id}\\.1 \\(run ${id} call 1\\) was already answered DONE by dana \\(continue\\) at ${LOCAL}; it is completed$`,
        ),
      ),
    ]);
    const byHandle = p.shop(['approve', `${id}.1`, '--by', 'erin']);
    expect(byHandle.code).toBe(6);
    expect(lines(byHandle.stderr)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^shop: ${id}\\.1 \\(run ${id} call 1\\) was already answered DONE by dana \\(continue\\) at ${LOCAL}; nothing is open now \\(run ${id} is completed\\)$`,
        ),
      ),
    ]);
  });

  it('the responder falls back from --by to SHOP_USER, git user.name, then the OS user', () => {
    const p = makeProject();
    p.write('workflows/ask.lua', 'function workflow(p) return pause("Deploy?").responder end\n');
    const noGit = { GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', SHOP_USER: '' };
    const who = (env: NodeJS.ProcessEnv, by?: string) => {
      const id = runId(p.shop(['run', 'ask']));
      expect(p.shop(['approve', String(id), ...(by ? ['--by', by] : [])], { env }).code).toBe(0);
      return answered(p, id)[0].actor;
    };
    // (--by over SHOP_USER: the trail above, where SHOP_USER=tester.)
    expect(who({ SHOP_USER: 'sam' })).toBe('sam');
    expect(who(noGit)).toBe(userInfo().username);
    execFileSync('git', ['init', '-q'], { cwd: p.dir });
    execFileSync('git', ['config', 'user.name', 'Gita Git'], { cwd: p.dir });
    expect(who(noGit)).toBe('Gita Git');
  });
});

describe('no file an agent can write answers a pause', () => {
  const forge = (p: Project, id: number) => {
    // What a rogue agent could write into the signals folder for the pause (call 2).
    p.writeSignal(id, '2', '_checkpoint', { status: 'CONTINUE', summary: 'approved by me' });
    p.writeSignal(id, '2', '_checkpoint.review', { status: 'CONTINUE' });
    p.writeSignal(id, '2', 'coder', { status: 'CONTINUE' });
  };

  it('a forged CONTINUE file and shop resume: the run stays waiting, nothing recorded', () => {
    const p = makeProject();
    p.write('workflows/guarded.lua', GUARDED);
    const id = runId(p.shop(['run', 'guarded']));
    expect(p.status(id).pending).toMatchObject({ key: '2', kind: 'pause' });
    forge(p, id);
    const r = p.shop(['resume', String(id)]);
    expect(r.code).toBe(3);
    expect(p.status(id)).toMatchObject({ status: 'waiting_human', pending: { key: '2', ask: 1 } });
    expect(answered(p, id)).toEqual([]);
  });

  it('no agent answers from its own shell either: the answering commands refuse inside an agent step', () => {
    const p = makeProject();
    p.write('workflows/guarded.lua', GUARDED);
    const id = runId(p.shop(['run', 'guarded']));
    // shop tui too: its keys answer (core's answer operation refuses an agent; the CLI says so before the screen opens).
    for (const args of [
      ['approve', String(id)],
      ['reject', String(id), 'no'],
      ['signal', String(id), '--status', 'CONTINUE'],
      ['continue', String(id)],
      ['tui'],
    ]) {
      const r = p.shop(args, { env: { SHOP_AGENT: 'coder', SHOP_SIGNAL_FILE: p.signalFile(id, '1', 'coder') } });
      expect(r.code, args.join(' ')).toBe(2);
      expect(lines(r.stderr)).toEqual([
        expect.stringMatching(
          new RegExp(
            `^shop: shop ${args[0]} answers for a person and cannot run inside an agent step \\(SHOP_AGENT=coder\\)`,
          ),
        ),
      ]);
    }
    expect(p.status(id)).toMatchObject({ status: 'waiting_human', pending: { key: '2', ask: 1 } });
    expect(answered(p, id)).toEqual([]);
  });

  it('shop run --wait keeps waiting after a forged file appears, and completes on a real answer', async () => {
    const p = makeProject();
    p.write('workflows/guarded.lua', GUARDED);
    const bg = p.spawnShop(['run', '--wait', 'guarded']);
    try {
      await until('the pause', () => bg.output().includes('[2] waiting for a person: Deploy?'));
      const id = runId(bg.output());
      forge(p, id);
      await new Promise((r) => setTimeout(r, 1500));
      expect(bg.child.exitCode).toBeNull();
      expect(p.status(id).status).toBe('waiting_human');
      expect(answered(p, id)).toEqual([]);

      expect(p.shop(['approve', String(id), '--by', 'erin']).code).toBe(0);
      expect(await bg.exited).toBe(0);
      expect(bg.output()).toContain(`run ${id} completed: "true|erin"`);
    } finally {
      if (bg.child.exitCode === null) bg.child.kill('SIGKILL');
    }
  });
});

describe('shop inbox / shop list --waiting', () => {
  it('lists every pending ask across runs with its kind, question and the command to answer', () => {
    const p = makeProject();
    p.write('workflows/guarded.lua', GUARDED);
    p.scenario({
      agents: {
        coder: [{ status: 'NEEDS_HUMAN', reason: 'Review the diff?', awaiting: 'review' }, { status: 'DONE' }],
      },
    });
    const a = runId(p.shop(['run', 'guarded']));
    p.scenario({ agents: { coder: [{ status: 'DONE', summary: 'built' }] } });
    const b = runId(p.shop(['run', 'guarded']));
    expect(p.status(b).pending).toMatchObject({ kind: 'pause' });

    const json = p.shop(['inbox', '--json']);
    expect(json.code).toBe(0);
    const rows = JSON.parse(json.stdout);
    for (const row of rows) InboxRowJsonSchema.strict().parse(row);
    expect(rows).toEqual([
      expect.objectContaining({
        run: a,
        spec: 'guarded',
        key: '1',
        kind: 'run',
        agent: 'coder',
        awaiting: 'review',
        question: 'Review the diff?',
        handle: `${a}.1`,
        answer_with: [`shop continue ${a}.1`, `shop approve ${a}.1 [--message "…"]`, `shop reject ${a}.1 "feedback"`],
      }),
      expect.objectContaining({
        run: b,
        spec: 'guarded',
        key: '2',
        kind: 'pause',
        awaiting: 'checkpoint',
        question: 'Deploy?',
        handle: `${b}.2`,
        answer_with: [`shop continue ${b}.2`, `shop approve ${b}.2`, `shop reject ${b}.2 "why"`],
      }),
    ]);
    expect(JSON.parse(p.shop(['list', '--waiting', '--json']).stdout)).toEqual(JSON.parse(json.stdout));

    const text = lines(p.shop(['inbox']).stdout);
    expect(text[0].split(/\s{2,}/)).toEqual([
      'RUN',
      'SPEC',
      'CALL',
      'AWAITING',
      'AGENT',
      'WAITED',
      'CLAIMED',
      'QUESTION',
      'ANSWER WITH',
    ]);
    expect(text.slice(1).map((l) => l.split(/\s{2,}/).filter((_, i) => i !== 5))).toEqual([
      [String(a), 'guarded', '1', 'review', 'coder', '-', 'Review the diff?', `shop continue ${a}.1`],
      [String(b), 'guarded', '2', 'checkpoint', 'pause', '-', 'Deploy?', `shop continue ${b}.2`],
    ]);
    expect(lines(p.shop(['list', '--waiting']).stdout)).toHaveLength(3);

    // Answered asks leave the inbox.
    expect(p.shop(['approve', String(a)]).code).toBe(3); // run a goes on to its own pause
    expect(p.shop(['approve', String(b)]).code).toBe(0);
    expect(
      JSON.parse(p.shop(['inbox', '--json']).stdout).map((r: { run: number; key: string }) => [r.run, r.key]),
    ).toEqual([[a, '2']]);
    expect(p.shop(['approve', String(a)]).code).toBe(0);
    expect(p.shop(['inbox']).stdout).toBe('nothing waits for a person\n');
  });
});
