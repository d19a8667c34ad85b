import { chmodSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RunJsonSchema } from '../../packages/core/src/operations/shapes.js';
import { lines, makeProject, runId, until, type Project } from './harness.js';
import { Terminal } from './terminal.js';

/** A coder that thinks, reads and runs the tests, 700 ms apart, then works on 2 s before it reports. */
const STREAMING = {
  agents: {
    coder: [
      {
        status: 'DONE',
        summary: 'fixed',
        stream: [
          { text: 'Looking at the failing test' },
          { tool: 'Read', input: { file_path: 'src/login.ts' } },
          { tool: 'Bash', input: { command: 'npm test -- login' } },
        ],
        pace_ms: 700,
        sleep_ms: 2000,
      },
    ],
  },
};

const single = (p: Project) =>
  p.write(
    'workflows/one.lua',
    'function workflow(prompt)\n  local r = run("coder", "fix the login")\n  return pause("Ship?").continue\nend\n',
  );

/** `shop run one` in the background on the streaming stand-in, once it printed the run id. */
async function streamingRun(scenario: object = STREAMING) {
  const p = makeProject();
  p.scenario(scenario);
  single(p);
  const bg = p.spawnShop(['run', 'one']);
  await until('the run id', () => /run \d+ started/.test(bg.output()));
  return { p, bg, id: runId(bg.output()) };
}

describe('progress of a running agent', () => {
  it("reaches shop status --json, status and list while the step runs; the trail's final cost comes from the result event", async () => {
    // The coder reports only once the test has looked (a loaded machine may take more than its 2 s over three commands).
    const { p, bg, id } = await streamingRun({
      agents: { coder: [{ ...STREAMING.agents.coder[0], until_file: '.looked' }] },
    });
    const seen = await until('an activity', () => {
      const e = p.status(id).executions[0];
      return e?.status === 'running' && e.activity ? e : null;
    });
    expect(['Looking at the failing test', 'Read src/login.ts', 'Bash npm test -- login']).toContain(seen.activity);
    expect(Date.parse(seen.attempt_at!)).toBeLessThanOrEqual(Date.now());
    const later = await until(
      'the Bash step',
      () => p.status(id).executions[0].activity === 'Bash npm test -- login' || null,
      10_000,
    );
    expect(later).toBe(true);
    const row = RunJsonSchema.array().parse(JSON.parse(p.shop(['list', '--json']).stdout))[0];
    expect(row.activity).toMatchObject({ key: '1', agent: 'coder', text: 'Bash npm test -- login' });
    expect(lines(p.shop(['list']).stdout)[1]).toMatch(
      new RegExp(`^${id}\\s+one\\s+running\\s+coder\\s+-\\s+\\d+s\\s+-\\s+\\[1\\] Bash npm test -- login \\(\\d+s\\)$`),
    );
    expect(p.shop(['status', String(id)]).stdout).toMatch(/#1\s+coder\s+running\s+-\s+Bash npm test -- login \(\d+s\)/);
    p.write('.looked', '');
    expect(await bg.exited).toBe(3);
    expect(p.status(id).executions[0]).toMatchObject({ status: 'completed', cost_usd: 0.0125, num_turns: 3 });
    // On a pipe, no live lines: the plain started and finished lines only.
    expect(lines(bg.output()).filter((l) => l.includes('[1]'))).toEqual([
      expect.stringMatching(/^ {2}\[1\] coder started \(session /),
      '  [1] coder → DONE: fixed',
    ]);
  });

  it('shop log -f follows the trail and the activity, and ends when the run waits (exit 3)', async () => {
    const { p, bg, id } = await streamingRun();
    const f = await p.shopAsync(['log', '-f', String(id)]);
    expect(f.code).toBe(3);
    const out = lines(f.stdout);
    expect(
      out.some((l) =>
        /^\S+ \S+ [+-]\d\d:\d\d {2}activity \[1 coder\] {2}(Read src\/login\.ts|Bash npm test -- login)$/.test(l),
      ),
    ).toBe(true);
    expect(out.at(-1)).toMatch(/ {2}waiting \[2 _checkpoint\] {2}waiting_for="Ship\?" awaiting="checkpoint"$/);
    expect(await bg.exited).toBe(3);
    // After the run ends, -f prints the whole trail and exits with the run's state.
    p.shop(['approve', String(id)]);
    const done = p.shop(['log', '-f', String(id), '--json']);
    expect(done.code).toBe(0);
    const objects = lines(done.stdout).map((l) => JSON.parse(l) as { kind: string; type?: string });
    expect(objects.every((o) => o.kind === 'event')).toBe(true);
    expect(objects.at(-1)).toMatchObject({ kind: 'event', type: 'completed' });
  });

  it('an agent whose command: prints one json result (no stream) still completes, with its cost', () => {
    const p = makeProject();
    const script = join(p.dir, 'plain-agent.sh');
    p.write(
      'plain-agent.sh',
      '#!/bin/sh\nprintf \'{"status":"DONE","summary":"plain"}\' > "$SHOP_SIGNAL_FILE"\necho \'{"type":"result","is_error":false,"result":"ok","total_cost_usd":0.5,"num_turns":2}\'\n',
    );
    chmodSync(script, 0o755);
    p.write('agents/plain.md', `---\ncommand: ["${script}", "{prompt}"]\n---\nPlain.\n`);
    p.write('workflows/plain.lua', 'function workflow(prompt)\n  return run("plain", "go").summary\nend\n');
    const r = p.shop(['run', 'plain']);
    expect(r.code).toBe(0);
    expect(lines(r.stdout).at(-1)).toBe(`run ${runId(r)} completed: "plain"`);
    expect(p.status(runId(r)).executions[0]).toMatchObject({ cost_usd: 0.5, num_turns: 2, activity: null });
  });
});

describe('live lines on a terminal', () => {
  it("show a spinner, the agent's activity and elapsed time, then give way to the result line", async () => {
    const p = makeProject();
    p.scenario(STREAMING);
    single(p);
    const term = new Terminal(
      p,
      `node ${join(import.meta.dirname, '..', '..', 'packages', 'cli', 'bin', 'shop')} run one`,
    );
    try {
      const live = await term.waitFor(
        /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] \[1\] coder \d+s {2}(Looking at the failing test|Read src\/login\.ts|Bash npm test -- login)/,
      );
      expect(live).not.toContain('[1] coder started');
      const end = await term.waitFor('[exit ');
      expect(end).toContain('  [1] coder → DONE: fixed');
      expect(end).not.toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] \[1\]/);
      expect(end).toContain('[exit 3]');
    } finally {
      term.kill();
    }
  });
});
