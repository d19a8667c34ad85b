import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { transcriptPath } from '../../packages/core/src/agents/claude-transcript.js';
import { LogJsonSchema } from '../../packages/core/src/operations/shapes.js';
import { afterEach } from 'vitest';
import {
  agentRunning,
  killLeftovers,
  lines,
  makeProject,
  runId,
  shopBin,
  stopWorker,
  until,
  type Project,
  type Step,
} from './harness.js';
import { Terminal } from './terminal.js';

/**
 * Two machines on one store: each its own Claude Code config folder (CLAUDE_CONFIG_DIR, where
 * Claude Code keeps session transcripts) and its own name (SHOP_HOSTNAME). A session started
 * on one is resumed on the other from the transcript Shop kept in the store.
 */
const machine = (p: Project, name: string) => ({
  CLAUDE_CONFIG_DIR: join(p.dir, `claude-${name}`),
  SHOP_HOSTNAME: name,
});

const WORKFLOW =
  'function workflow(p) local r = run("coder", "add the users table") return r.status .. "|" .. (r.summary or "") end\n';
const ASKS: Step = { status: 'NEEDS_HUMAN', reason: 'Approve the migration?', awaiting: 'approval' };
const REWORKED: Step = { status: 'DONE', summary: 'reworked' };

function project(coder: Step[]): Project {
  const p = makeProject();
  p.write('workflows/migrate.lua', WORKFLOW);
  p.scenario({ agents: { coder } });
  return p;
}

const coderCalls = (p: Project) => p.invocations().filter((i) => i.agent === 'coder' && i.mode !== 'said');
const events = (p: Project, id: number) =>
  LogJsonSchema.parse(JSON.parse(p.shop(['log', String(id), '--json']).stdout)).events;

describe("a run's Claude sessions move between machines through the store", () => {
  it('feedback given on machine B resumes the session machine A started: its transcript comes from the store', () => {
    const p = project([ASKS, REWORKED]);
    const a = machine(p, 'machine-a');
    const b = machine(p, 'machine-b');
    const started = p.shop(['run', 'migrate'], { env: a });
    expect(started.code).toBe(3);
    const id = runId(started);
    const session = p.status(id).executions[0].session_id!;
    const onA = coderCalls(p)[0].transcript!;
    // The stand-in keeps it where Claude Code would, and where Shop looks for it.
    expect(onA).toBe(transcriptPath(a, p.dir, session));
    expect(p.status(id).sessions).toEqual([
      {
        call: '1',
        session_id: session,
        host: 'machine-a',
        kept: 'store',
        bytes: statSync(onA).size,
        stored_bytes: expect.any(Number),
        saved_at: expect.any(String),
      },
    ]);
    expect(lines(p.shop(['status', String(id)]).stdout)).toContainEqual(
      expect.stringMatching(
        /^Sessions: 1 kept in the store \(\d+ bytes compressed; last kept on machine-a\): resumable on any machine$/,
      ),
    );
    const onB = onA.replace(a.CLAUDE_CONFIG_DIR, b.CLAUDE_CONFIG_DIR);
    expect(existsSync(onB)).toBe(false);

    const r = p.shop(['reject', `${id}.1`, 'add a down migration'], { env: b });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    // Machine B resumed the same conversation (not a new one under the same id): it remembered A's two lines.
    const again = coderCalls(p)[1];
    expect(again).toMatchObject({ session_id: session, resumed: true, remembered: 2, transcript: onB });
    expect(readFileSync(onB, 'utf8').startsWith(readFileSync(onA, 'utf8'))).toBe(true);
    const restored = events(p, id).filter((e) => e.type === 'session_restored');
    expect(restored).toEqual([
      expect.objectContaining({
        key: '1',
        data: expect.objectContaining({ session_id: session, host: 'machine-b', from: 'machine-a', replaced: false }),
      }),
    ]);
    const done = p.status(id);
    expect(done).toMatchObject({ status: 'completed', result: 'DONE|reworked' });
    expect(done.sessions).toEqual([
      expect.objectContaining({ call: '1', host: 'machine-b', kept: 'store', bytes: statSync(onB).size }),
    ]);
  });

  it('SHOP_SESSION_CAP_MB=0 keeps no session in the store: it stays on its machine', () => {
    const p = project([ASKS, REWORKED]);
    const a = { ...machine(p, 'machine-a'), SHOP_SESSION_CAP_MB: '0' };
    const id = runId(p.shop(['run', 'migrate'], { env: a }));
    expect(p.shop(['reject', `${id}.1`, 'add a down migration'], { env: a }).code).toBe(0);
    expect(p.status(id)).toMatchObject({ status: 'completed', sessions: [] });
    expect(coderCalls(p).map((i) => [i.resumed, i.remembered])).toEqual([
      [false, 0],
      [true, 2],
    ]);
    expect(lines(p.shop(['status', String(id)]).stdout).filter((l) => l.startsWith('Sessions:'))).toEqual([]);
  });

  it('a transcript over the cap is pinned to its host: said on the trail and in shop status; another machine is told where to resume', () => {
    const p = project([ASKS, REWORKED]);
    const a = { ...machine(p, 'machine-a'), SHOP_SESSION_CAP_MB: '0.0001' };
    const b = { ...machine(p, 'machine-b'), SHOP_SESSION_CAP_MB: '0.0001' };
    const id = runId(p.shop(['run', 'migrate'], { env: a }));
    expect(p.status(id).sessions).toEqual([
      expect.objectContaining({ call: '1', host: 'machine-a', kept: 'pinned', stored_bytes: null }),
    ]);
    expect(events(p, id).filter((e) => e.type === 'session_pinned')).toEqual([
      expect.objectContaining({ key: '1', data: expect.objectContaining({ host: 'machine-a', cap: 105 }) }),
    ]);
    expect(lines(p.shop(['status', String(id)]).stdout)).toContainEqual(
      expect.stringMatching(
        /^Sessions: call 1's session is pinned to machine-a \(its transcript, \d+ bytes, is over the store's cap, SHOP_SESSION_CAP_MB\): it resumes only there$/,
      ),
    );

    const onB = p.shop(['reject', `${id}.1`, 'add a down migration'], { env: b });
    expect(onB.code).toBe(1);
    expect(onB.stderr + onB.stdout).toContain(`its Claude session lives only on host machine-a`);
    expect(onB.stderr + onB.stdout).toContain(`resume the run there: shop resume ${id} on machine-a`);
    // No agent was started on B for it.
    expect(coderCalls(p)).toHaveLength(1);

    const onA = p.shop(['resume', String(id)], { env: a });
    expect(onA.code).toBe(0);
    expect(coderCalls(p)[1]).toMatchObject({ resumed: true, remembered: 2 });
    expect(p.status(id)).toMatchObject({ status: 'completed', result: 'DONE|reworked' });
  });
});

describe('a takeover on another machine', () => {
  it("machine B takes over a run whose driver on A died mid-step: the agent resumes the session A's last step kept", async () => {
    const p = project([
      ASKS,
      { status: 'DONE', summary: 'never finishes', sleep_ms: 30_000 },
      { status: 'DONE', summary: 'after the takeover' },
    ]);
    const a = { ...machine(p, 'machine-a'), SHOP_LEASE_SECONDS: '1' };
    const b = machine(p, 'machine-b');
    const id = runId(p.shop(['run', 'migrate'], { env: a }));
    const session = p.status(id).executions[0].session_id;
    // On A the feedback goes back to the agent; A's driver dies while the agent works on it.
    const driver = p.spawnShop(['reject', `${id}.1`, 'add a down migration'], { env: a });
    const orphan = await until('the agent on A to work on the feedback', () => coderCalls(p)[1]);
    driver.child.kill('SIGKILL');
    expect(await driver.exited).toBeNull();
    // A's lease runs out (B cannot see A's processes): the run shows interrupted.
    await until("A's lease to run out", () => p.status(id).status === 'interrupted');

    const r = p.shop(['resume', String(id)], { env: b });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(agentRunning(orphan)).toBe(false);
    const taken = coderCalls(p)[2];
    // B resumed the conversation as A's last kept step left it (its first exchange), with the person's words again.
    expect(taken).toMatchObject({
      session_id: session,
      resumed: true,
      remembered: 2,
      transcript: orphan.transcript!.replace(a.CLAUDE_CONFIG_DIR, b.CLAUDE_CONFIG_DIR),
    });
    expect(taken.prompt).toContain('add a down migration');
    expect(events(p, id).filter((e) => e.type === 'session_restored')).toEqual([
      expect.objectContaining({ key: '1', data: expect.objectContaining({ host: 'machine-b', from: 'machine-a' }) }),
    ]);
    expect(p.status(id)).toMatchObject({ status: 'completed', result: 'DONE|after the takeover' });
  });
});

describe('workers on several machines and a pinned session', () => {
  afterEach(killLeftovers);

  it("a worker on another host leaves a run pinned to A alone; A's worker takes it and finishes it", async () => {
    const p = project([ASKS, REWORKED]);
    const cap = { SHOP_SESSION_CAP_MB: '0.0001' };
    const a = { ...machine(p, 'machine-a'), ...cap };
    const b = { ...machine(p, 'machine-b'), ...cap };
    const pinnedToA = runId(p.shop(['run', 'migrate'], { env: a }));
    const pinnedToB = runId(p.shop(['run', 'migrate'], { env: b }));
    const held = (id: number) => `run ${id} (migrate): held here while it waits for a person`;
    const onB = p.spawnShop(['watch'], { env: b });
    // Runs are looked at oldest first: once B holds its own, it has passed A's by.
    await until("B's worker to hold B's run", () => onB.output().includes(held(pinnedToB)));
    expect(onB.output()).not.toContain(held(pinnedToA));
    const onA = p.spawnShop(['watch'], { env: a });
    await until("A's worker to hold A's run", () => onA.output().includes(held(pinnedToA)));
    const r = p.shop(['approve', `${pinnedToA}.1`], { env: b });
    expect(r.code).toBe(0);
    await until("A's worker to finish A's run", () => p.status(pinnedToA).status === 'completed');
    expect(await stopWorker(onA)).toBe(0);
    expect(await stopWorker(onB)).toBe(0);
    expect(onB.output()).not.toContain(`run ${pinnedToA} `);
  });
});

describe('shop report keeps the report in the store, for its own call and attempt only', () => {
  it("a report whose file is gone (another machine's disk) is read from the store", () => {
    const p = project([{ status: 'DONE', summary: 'from the store', via: 'report', drop_file: true }]);
    const r = p.shop(['run', 'migrate']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(existsSync(coderCalls(p)[0].signal_file!)).toBe(false);
    expect(p.status(runId(r))).toMatchObject({ status: 'completed', result: 'DONE|from the store' });
  });

  it('shop report whose file cannot be written keeps the report in the store alone, says so, and the step completes', () => {
    const p = project([{ status: 'DONE', summary: 'only in the store', via: 'report', block_file: true }]);
    const r = p.shop(['run', 'migrate']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const id = runId(r);
    expect(p.status(id)).toMatchObject({ status: 'completed', result: 'DONE|only in the store' });
    // What shop report said, in the agent's output (the stand-in runs it with the agent's stdout).
    const out = readFileSync(join(p.dir, '.shop', 'runs', String(id), '1.coder.1.stdout.log'), 'utf8');
    expect(out).toContain(
      `reported DONE to the store of run ${id} (${coderCalls(p)[0].signal_file} could not be written here: it is a folder (EISDIR))`,
    );
  });

  it("a report for a call that waits, or under another path than its attempt's, is refused and recorded nowhere", () => {
    const p = project([ASKS]);
    const id = runId(p.shop(['run', 'migrate']));
    const real = coderCalls(p)[0].signal_file!;
    const guessed = join(p.dir, '.shop', 'signals', `${id}.1.coder.guessed.json`);
    for (const file of [guessed, real]) {
      const r = p.shop(['report', 'APPROVED', '--summary', 'forged'], {
        env: { SHOP_RUN_ID: String(id), SHOP_CALL: '1', SHOP_AGENT: 'coder', SHOP_SIGNAL_FILE: file },
      });
      expect(r.code).toBe(6);
      expect(lines(r.stderr)).toEqual([
        `shop: run ${id} call 1 takes no report from this step: SHOP_SIGNAL_FILE is not the path of its current attempt, or the call is not running; see: shop status ${id}`,
      ]);
    }
    expect(existsSync(guessed)).toBe(false);
    expect(p.status(id)).toMatchObject({ status: 'waiting_human', pending: { key: '1', ask: 1 } });
    expect(events(p, id).filter((e) => e.type === 'human_answered')).toEqual([]);
  });
});

describe('shop continue on another machine (tmux)', () => {
  it("opens the agent's session from the store's transcript, and keeps what was said there for the run's next steps", async () => {
    const p = makeProject();
    p.scenario({
      agents: {
        coder: [
          { status: 'NEEDS_HUMAN', reason: 'Which database?' },
          { status: 'DONE', summary: 'fixed' },
        ],
      },
    });
    const a = machine(p, 'machine-a');
    const b = machine(p, 'machine-b');
    const id = runId(p.shop(['run', 'bugfix', 'x'], { env: a }));
    const waiting = p.status(id).executions[0];
    const term = new Terminal(
      p,
      `env CLAUDE_CONFIG_DIR='${b.CLAUDE_CONFIG_DIR}' SHOP_HOSTNAME=machine-b '${process.execPath}' '${shopBin}' continue ${id}`,
    );
    try {
      const banner = await term.waitFor(/^> ?$/m);
      expect(banner).toContain(`Claude Code (stand-in) — resumed session ${waiting.session_id}`);
      const end = await term.answerAndLeave();
      expect(end).toContain('coder reported DONE; resuming run');
      expect(end).toContain('[exit 0]');
    } finally {
      term.kill();
    }
    const chat = p.invocations().find((i) => i.mode === 'interactive')!;
    expect(chat).toMatchObject({ session_id: waiting.session_id, remembered: 2 });
    expect(chat.transcript!.startsWith(b.CLAUDE_CONFIG_DIR + '/')).toBe(true);
    const log = events(p, id);
    expect(log.filter((e) => e.type === 'session_restored')).toEqual([
      expect.objectContaining({
        key: '1',
        channel: 'continue',
        data: expect.objectContaining({ host: 'machine-b', from: 'machine-a' }),
      }),
    ]);
    // What the person said on B was kept (by their hold on the session) before the run went on.
    const call1 = p.status(id).sessions.find((s) => s.call === '1')!;
    expect(call1).toMatchObject({ host: 'machine-b', kept: 'store', bytes: statSync(chat.transcript!).size });
    expect(p.status(id).status).toBe('completed');
  });

  it('a pinned session is not opened on another machine: shop continue names the host, and the ask stays open', async () => {
    const p = makeProject();
    p.scenario({ agents: { coder: [{ status: 'NEEDS_HUMAN', reason: 'Which database?' }] } });
    const a = { ...machine(p, 'machine-a'), SHOP_SESSION_CAP_MB: '0.0001' };
    const id = runId(p.shop(['run', 'bugfix', 'x'], { env: a }));
    const term = new Terminal(
      p,
      `env CLAUDE_CONFIG_DIR='${join(p.dir, 'claude-machine-b')}' SHOP_HOSTNAME=machine-b '${process.execPath}' '${shopBin}' continue ${id}`,
    );
    let end: string;
    try {
      end = await term.waitFor('[exit ');
    } finally {
      term.kill();
    }
    expect(end).toContain(`its Claude session lives only on host machine-a`);
    expect(end).toContain('run shop continue there on machine-a');
    expect(end).toContain('[exit 6]');
    expect(p.invocations().filter((i) => i.mode === 'interactive')).toEqual([]);
    // Its hold went with it: the ask is answered as usual on machine A (the agent, resumed there, asks again).
    const answered = p.shop(['answer', `${id}.1`, 'postgres'], { env: a });
    expect(answered.stderr).toBe('');
    expect(answered.code).toBe(3);
    expect(
      p
        .invocations()
        .filter((i) => i.mode === 'print')
        .map((i) => [i.resumed, i.remembered]),
    ).toEqual([
      [false, 0],
      [true, 2],
    ]);
    expect(events(p, id).filter((e) => e.type === 'human_answered')).toHaveLength(1);
  });

  it("shop continue on a machine without the session's directory names the path instead of starting Claude elsewhere", async () => {
    const p = makeProject();
    for (const args of [
      ['init', '-q', '-b', 'main'],
      ['config', 'user.email', 'tester@example.com'],
      ['config', 'user.name', 'tester'],
      ['config', 'commit.gpgsign', 'false'],
      ['add', '-A'],
      ['commit', '-q', '-m', 'shop init'],
    ])
      execFileSync('git', args, { cwd: p.dir, stdio: 'ignore' });
    p.scenario({ agents: { coder: [{ status: 'NEEDS_HUMAN', reason: 'Which database?' }] } });
    const id = runId(p.shop(['run', '--worktree', 'bugfix', 'x']));
    const tree = join(p.dir, '.shop', 'worktrees', `run-${id}`);
    expect(p.status(id).executions[0].cwd).toBe(tree);
    // As on a machine whose checkout is elsewhere: the session's directory is not there.
    rmSync(tree, { recursive: true, force: true });
    const term = new Terminal(p, `'${process.execPath}' '${shopBin}' continue ${id}`);
    let end: string;
    try {
      end = await term.waitFor('[exit ');
    } finally {
      term.kill();
    }
    expect(end.replace(/\n/g, '')).toContain(`the session of ${id}.1 runs in ${tree}, which is not on this machine`);
    expect(end).toContain('[exit 2]');
    expect(p.invocations().filter((i) => i.mode === 'interactive')).toEqual([]);
  });
});
