import { describe, expect, it } from 'vitest';
import { lines, makeProject, runId, until, type Project } from './harness.js';

/**
 * Agents on Codex and on Gemini CLI (`cli:` in their front matter), through the real `shop`
 * binary on the stand-ins (scripts/codex-standin.mjs, scripts/gemini-standin.mjs: the real
 * flags, the real JSON events, sessions kept where each CLI keeps them).
 */

const FAST = { SHOP_RETRY_BASE_MS: '20', SHOP_RETRY_CAP_MS: '40' };

function project(cli: 'codex' | 'gemini', head = '', permission = ''): Project {
  const p = makeProject();
  p.write('agents/coder.md', `---\ncli: ${cli}\n${permission}---\nYou write code.\n`);
  p.write(
    'workflows/once.lua',
    `${head}\nfunction workflow(prompt)\n  local r = run("coder", { prompt = "Build the login page" })\n  return { status = r.status, summary = r.summary, session = r.session_id }\nend\n`,
  );
  return p;
}

const prints = (p: Project) => p.invocations().filter((i) => i.mode === 'print');

describe.each(['codex', 'gemini'] as const)('an agent on %s', (cli) => {
  it('runs a step through its CLI: its events become progress while it works, its report the result, its session is recorded', async () => {
    const p = project(cli);
    // Paced so the step works for a few seconds: its progress is read while it runs.
    p.scenario({
      agents: {
        coder: [
          {
            status: 'DONE',
            summary: 'login page built',
            pace_ms: 1200,
            stream: [{ text: 'Looking at the form.' }, { tool: 'Bash', input: { command: 'npm test' } }],
          },
        ],
      },
    });
    const bg = p.spawnShop(['run', 'once', 'x']);
    await until('the run id', () => /run \d+ started/.test(bg.output()));
    const id = runId(bg.output());
    await until(
      'the Bash step shown as its activity',
      () => {
        const e = p.status(id).executions[0];
        return e?.status === 'running' && /npm test/.test(e.activity ?? '') ? true : null;
      },
      20_000,
    );
    expect(await bg.exited).toBe(0);
    expect(bg.output()).toContain('[1] coder → DONE: login page built');
    const [call] = prints(p);
    expect(call).toMatchObject({ cli, agent: 'coder', resumed: false });
    // The instructions ride on the first prompt (neither CLI has a system-prompt flag), the task after them.
    expect(call!.prompt).toMatch(/^You write code\.\n\n## Reporting back to Shop[\s\S]*\n---\n\nBuild the login page$/);
    const exec = p.status(id).executions.find((e) => e.key === '1')!;
    // Codex names its thread itself (read from its events); Gemini takes Shop's id.
    expect(exec.session_id).toBe(call!.session_id);
    const result = JSON.parse(
      lines(bg.output())
        .at(-1)!
        .replace(/^run \d+ completed: /, ''),
    );
    expect(result).toEqual({ status: 'DONE', summary: 'login page built', session: call!.session_id });
  });

  it("NEEDS_HUMAN → a person's answer → the agent resumes its own session with the answer", () => {
    const p = project(cli);
    p.scenario({
      agents: {
        coder: [
          { status: 'NEEDS_HUMAN', reason: 'Which database?' },
          { status: 'DONE', summary: 'used SQLite' },
        ],
      },
    });
    const first = p.shop(['run', 'once', 'x']);
    expect(first.code).toBe(3);
    const id = runId(first);
    expect(first.stdout).toContain('Which database?');
    const answered = p.shop(['answer', `${id}.1`, 'SQLite, please']);
    expect(answered.stderr).toBe('');
    expect(answered.code).toBe(0);
    expect(p.status(id).status).toBe('completed');
    const [asked, resumed] = prints(p);
    expect(resumed).toMatchObject({ cli, resumed: true, session_id: asked!.session_id });
    expect(resumed!.prompt).toContain('SQLite, please');
  });

  it('a transient failure (API overloaded) is retried on the same session', () => {
    const p = project(cli, 'config{ retries = 2 }');
    p.scenario({ agents: { coder: [{ fail: 529 }, { status: 'DONE', summary: 'built' }] } });
    const r = p.shop(['run', 'once', 'x'], { env: FAST });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/\[1\] coder failed on attempt 1 of 3 \(.*\); trying again in \d+m?s on the same session/);
    const calls = prints(p);
    // Gemini keeps no session that never got a reply: its resume fails (exit 42) and the step starts afresh under the same id.
    expect(calls.map((c) => c.resumed)).toEqual(cli === 'gemini' ? [false, false] : [false, true]);
    expect(new Set(calls.map((c) => c.session_id)).size).toBe(1);
  });
});

describe('a CLI that cannot reach its service never hangs a step', () => {
  it('codex retrying forever ("waiting for network") ends the step with one line naming Codex', () => {
    const p = project('codex', 'config{ retries = 0 }');
    p.scenario({ agents: { coder: [{ fail: 'network', pace_ms: 50 }] } });
    const started = Date.now();
    const r = p.shop(['run', 'once', 'x']);
    expect(r.code).toBe(1);
    expect(lines(r.stderr)).toEqual([
      expect.stringMatching(
        /^shop: run \d+ failed: .*Codex cannot reach its service and retries forever \(Reconnecting\.\.\. waiting for network.*\); check the network, and that it is logged in/,
      ),
    ]);
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  it('codex not logged in: the step fails at once saying so (codex login status asked first), never retried as a network error', () => {
    const p = project('codex', 'config{ retries = 3 }');
    p.scenario({ agents: { coder: [{ fail: 'auth' }] } });
    const started = Date.now();
    const r = p.shop(['run', 'once', 'x'], { env: FAST });
    expect(r.code).toBe(1);
    expect(lines(r.stderr)).toEqual([
      expect.stringMatching(
        /^shop: run \d+ failed: Codex is not logged in \(`codex login status`: Not logged in\): run `codex login` on this machine, or give the agent CODEX_API_KEY/,
      ),
    ]);
    expect(prints(p)).toHaveLength(0);
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('gemini without auth fails at once with its own words, and is not retried', () => {
    const p = project('gemini', 'config{ retries = 2 }');
    p.scenario({ agents: { coder: [{ fail: 'auth' }] } });
    const r = p.shop(['run', 'once', 'x'], { env: FAST });
    expect(r.code).toBe(1);
    expect(lines(r.stderr)).toEqual([
      expect.stringMatching(
        /^shop: run \d+ failed: agent coder \(Gemini CLI\) exited with code 41 without a signal; stderr: Please set an Auth method in .*GEMINI_API_KEY/,
      ),
    ]);
    expect(prints(p)).toHaveLength(1);
  });
});
