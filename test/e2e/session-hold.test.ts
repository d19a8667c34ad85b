import Database from 'better-sqlite3';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  agentRunning,
  cutLifelines,
  isRunning,
  killLeftovers,
  lines,
  makeProject,
  runId,
  shopBin,
  until,
  type Project,
} from './harness.js';
import { overlaps, readSpans } from './spans.js';
import { Terminal } from './terminal.js';

const shopCommand = (args: string) => `'${process.execPath}' '${shopBin}' ${args}`;

function withSpans(p: Project): string {
  const file = join(p.dir, 'spans.jsonl');
  p.env.SHOP_STANDIN_SPANS = file;
  return file;
}

/** A coder that asks once, then finishes; the run waits on call 1. */
function waitingCoder(p: Project): number {
  p.scenario({
    agents: {
      coder: [
        { status: 'NEEDS_HUMAN', reason: 'Which database?' },
        { status: 'DONE', summary: 'fixed' },
      ],
    },
  });
  const run = p.shop(['run', 'bugfix', 'x']);
  expect(run.code).toBe(3);
  return runId(run);
}

const headless = (p: Project, call: string) => p.invocations().filter((i) => i.mode === 'print' && i.call === call);

/** `shop …` with a deadline: a command that hangs is killed and reported as code null. */
async function shopWithin(p: Project, args: string[], ms: number) {
  const { spawn } = await import('node:child_process');
  const child = spawn(process.execPath, [shopBin, ...args], {
    cwd: p.dir,
    env: p.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), ms);
  const code = await new Promise<number | null>((res) => child.on('close', (c) => res(c)));
  clearTimeout(timer);
  return { code, stdout, stderr };
}

describe('one agent process per call: a person in shop continue holds the session', () => {
  afterEach(killLeftovers);

  it('an answer while the session is open is refused with one line (exit 6), and no second process starts; after it closes the answer works', async () => {
    const p = makeProject();
    const spans = withSpans(p);
    const id = waitingCoder(p);
    const term = new Terminal(p, shopCommand(`continue ${id}`));
    try {
      await term.waitFor(/^> ?$/m);
      for (const args of [
        ['answer', String(id), 'use postgres'],
        ['signal', String(id), '--status', 'DONE'],
      ]) {
        const r = p.shop(args);
        expect(r.code, r.stderr).toBe(6);
        expect(lines(r.stderr)).toHaveLength(1);
        expect(r.stderr).toMatch(
          new RegExp(
            `^shop: run ${id} call 1: tester is in coder's session \\(shop continue, process \\d+\\) since \\d{4}-\\d\\d-\\d\\d [\\d:]+ [+-]\\d\\d:\\d\\d; answer there`,
          ),
        );
      }
      // Nothing was started on the session beside the person's; status says who is in it.
      expect(headless(p, '1')).toHaveLength(1);
      expect(p.shop(['status', String(id)]).stdout).toMatch(
        /In its session: tester \(shop continue, process \d+\) since /,
      );
      expect(p.status(id).executions[0].session_hold).toMatchObject({ kind: 'continue', by: 'tester' });
      // A second shop continue on the same session is refused the same way, before opening anything.
      const second = new Terminal(p, shopCommand(`continue ${id}`));
      try {
        const screen = await second.waitFor('[exit ');
        expect(screen).toMatch(
          new RegExp(`shop: run ${id} call 1: tester is in coder's session \\(shop continue, process \\d+\\) since `),
        );
        expect(screen).toContain('[exit 6]');
        expect(screen).not.toContain('Opening Claude session');
      } finally {
        second.kill();
      }
      expect(p.invocations().filter((i) => i.mode === 'interactive')).toHaveLength(1);
      expect(p.status(id)).toMatchObject({ status: 'waiting_human' });
      term.type('/exit');
      expect(await term.waitFor('[exit ')).toContain(`run ${id} is still waiting`);
    } finally {
      term.kill();
    }
    const r = p.shop(['answer', String(id), 'use postgres']);
    expect(r.code, r.stderr).toBe(0);
    expect(p.status(id).status).toBe('completed');
    expect(headless(p, '1').map((i) => i.resumed)).toEqual([false, true]);
    expect(overlaps(readSpans(spans))).toEqual([]);
  });

  it('a shop continue killed -9 leaves a hold judged dead: the answer is taken, its leftover claude ended before the agent resumes', async () => {
    const p = makeProject();
    const spans = withSpans(p);
    const id = waitingCoder(p);
    const term = new Terminal(p, shopCommand(`continue ${id}`));
    try {
      await term.waitFor(/^> ?$/m);
      const chat = p.invocations().find((i) => i.mode === 'interactive')!;
      const stat = readFileSync(`/proc/${chat.pid}/stat`, 'utf8');
      const continuePid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      process.kill(continuePid, 'SIGKILL');
      await until('shop continue to die', () => !isRunning(continuePid));
      const r = p.shop(['answer', String(id), 'use postgres']);
      expect(r.code, r.stderr).toBe(0);
      expect(p.status(id).status).toBe('completed');
      expect(isRunning(chat.pid)).toBe(false);
      const all = readSpans(spans);
      expect(all.find((s) => s.pid === chat.pid)?.end).not.toBeNull();
      expect(overlaps(all)).toEqual([]);
      expect(p.shop(['log', String(id)]).stdout).toMatch(
        /session_closed \[1 coder\].*its shop continue process is gone/,
      );
    } finally {
      term.kill();
    }
  });
});

describe('takeover of a run whose agent outlived its driver', () => {
  afterEach(killLeftovers);

  it("ends the orphan and waits for it before resuming the session, even when the orphan's pid was never recorded", async () => {
    const p = makeProject();
    const spans = withSpans(p);
    p.scenario({
      agents: {
        architect: [
          { status: 'DONE', summary: 'plan A', sleep_ms: 20_000 },
          { status: 'DONE', summary: 'plan B' },
        ],
      },
    });
    const bg = p.spawnShop(['run', 'feature', 'x']);
    await until(
      'the architect to start',
      () => /run \d+ started/.test(bg.output()) && p.invocations().some((i) => i.agent === 'architect'),
    );
    const id = runId(bg.output());
    const orphan = p.invocations()[0];
    // As if its lifeline failed with the driver: the takeover's own orphan check must end it.
    cutLifelines([orphan]);
    bg.child.kill('SIGKILL');
    await bg.exited;
    expect(agentRunning(orphan)).toBe(true);
    // As if the driver died between starting the agent and recording its pid.
    const db = new Database(join(p.dir, '.shop', 'shop.db'));
    const cols = (db.prepare('PRAGMA table_info(executions)').all() as { name: string }[]).map((c) => c.name);
    db.prepare(
      `UPDATE executions SET pid = NULL, pid_start = NULL${cols.includes('spawned') ? ', spawned = 0' : ''} WHERE run_id = ? AND call_key = '1'`,
    ).run(id);
    db.close();

    const r = p.shop(['resume', String(id)]);
    expect(r.code, r.stderr).toBe(3);
    expect(agentRunning(orphan)).toBe(false);
    expect(overlaps(readSpans(spans))).toEqual([]);
    // It had started: its session is resumed, not started anew under the same id.
    expect(headless(p, '1').map((i) => [i.session_id, i.resumed])).toEqual([
      [orphan.session_id, false],
      [orphan.session_id, true],
    ]);
  });
});

describe('states tell the truth', () => {
  afterEach(killLeftovers);

  it('after Ctrl-C of shop run: interrupted, its call "driver gone since" with no running clock; log -f says how to resume (exit 130)', async () => {
    const p = makeProject();
    p.scenario({
      agents: {
        architect: [{ status: 'DONE', sleep_ms: 20_000, stream: [{ tool: 'Edit', input: { file_path: 'b.ts' } }] }],
      },
    });
    const bg = p.spawnShop(['run', 'feature', 'x']);
    await until(
      'the agent at work',
      () => /run \d+ started/.test(bg.output()) && p.list()[0]?.activity?.text === 'Edit b.ts',
    );
    const id = runId(bg.output());
    bg.child.kill('SIGINT');
    expect(await bg.exited).toBe(130);

    const [row] = p.list();
    expect(row).toMatchObject({ id, status: 'interrupted' });
    expect(row.driver_gone_since).toMatch(/^\d{4}-/);
    const list = p.shop(['list']).stdout;
    expect(list).toContain(`driver gone since`);
    expect(list).toContain('(last: Edit b.ts)');
    expect(list).not.toMatch(/Edit b\.ts \(\d+s\)/);
    const status = p.shop(['status', String(id)]).stdout;
    expect(status).toMatch(/Driver gone since: /);
    expect(status).toMatch(/#1\s+architect\s+interrupted\s+-\s+driver gone since .* \(last: Edit b\.ts\)/);
    const approve = p.shop(['approve', String(id)]);
    expect(approve.code).toBe(6);
    expect(approve.stderr).toContain(`it is interrupted: its driver is gone since`);
    expect(approve.stderr).not.toContain('it is running');

    const follow = await shopWithin(p, ['log', String(id), '-f'], 10_000);
    expect(follow.code).toBe(130);
    expect(follow.stdout).toContain(`run ${id} is interrupted: its driver is gone since`);
    expect(follow.stdout).toContain(`pick it up with: shop resume ${id}`);
  });

  it('inbox: an ask of a run whose driver is gone says the run is interrupted (text and --json run_status)', async () => {
    const p = makeProject();
    p.write(
      'workflows/both.lua',
      'function workflow(p)\n  local a, b = parallel(function() return run("coder") end, function() return run("architect") end)\n  return a.status .. b.status\nend\n',
    );
    p.scenario({
      agents: {
        coder: [{ status: 'NEEDS_HUMAN', reason: 'Which database?' }],
        architect: [{ status: 'DONE', sleep_ms: 20_000 }],
      },
    });
    const bg = p.spawnShop(['run', 'both', 'x']);
    await until('the run to start', () => /run \d+ started/.test(bg.output()));
    const id = runId(bg.output());
    await until('the coder to wait', () => p.status(id).asks.some((a) => a.question === 'Which database?'));
    bg.child.kill('SIGINT');
    expect(await bg.exited).toBe(130);
    const text = p.shop(['inbox']).stdout;
    expect(text).toContain('Which database?');
    expect(text).toMatch(
      new RegExp(`run ${id} is interrupted: its driver is gone since .*; its other calls wait for: shop resume ${id}`),
    );
    const [row] = JSON.parse(p.shop(['inbox', '--json']).stdout);
    expect(row).toMatchObject({ run: id, run_status: 'interrupted' });
  });

  it('a call whose agent never started is started fresh on its own prompt ("started", not "resumed")', () => {
    const p = makeProject();
    const failed = p.shop(['run', 'bugfix', 'fix the login'], {
      env: { SHOP_CLAUDE_BIN: join(p.dir, 'no-such-claude') },
    });
    expect(failed.code).toBe(1);
    expect(p.invocations()).toEqual([]);
    const id = runId(failed);
    const r = p.shop(['resume', String(id)]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/\[1\] coder started \(session /);
    expect(r.stdout).not.toMatch(/\[1\] coder resumed/);
    const [first] = headless(p, '1');
    expect(first).toMatchObject({ agent: 'coder', resumed: false });
    expect(first.prompt).not.toContain('You were interrupted');
    expect(first.prompt).toContain('fix the login');
  });
});
