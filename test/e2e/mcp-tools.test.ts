import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lines, makeProject, runId, type Project } from './harness.js';

/**
 * Agents report through Shop's MCP server (`shop mcp`): each CLI's stand-in reads the MCP
 * configuration Shop gave it as the real CLI would (Claude Code --mcp-config, Codex -c
 * mcp_servers.shop.*, Gemini's settings), starts the server, and calls its tools with the SDK's
 * client (scripts/standin-mcp.mjs), under that CLI's rules for which tools may run.
 */

const ROOT = join(__dirname, '..', '..');
const SHOP = join(ROOT, 'packages', 'cli', 'bin', 'shop');
const HELPER = join(ROOT, 'scripts', 'standin-mcp.mjs');

function project(cli: 'claude' | 'codex' | 'gemini'): Project {
  const p = makeProject();
  // No permission mode: Gemini without --yolo, Codex sandboxed, Claude Code with its default permissions.
  p.write('agents/coder.md', `---\ncli: ${cli}\n---\nYou write code.\n`);
  p.write(
    'workflows/once.lua',
    'function workflow(prompt)\n  local r = run("coder", { prompt = "Build the login page" })\n  return { status = r.status, summary = r.summary, pr = r.pr }\nend\n',
  );
  return p;
}

const resultOf = (out: string) =>
  JSON.parse(
    lines(out)
      .at(-1)!
      .replace(/^run \d+ completed: /, ''),
  );

describe.each(['claude', 'codex', 'gemini'] as const)('an agent on %s reports through the MCP tool', (cli) => {
  it('DONE with its summary and fields reaches the workflow', () => {
    const p = project(cli);
    p.scenario({
      agents: { coder: [{ via: 'mcp', status: 'DONE', summary: 'login page built', fields: { pr: 42 } }] },
    });
    const r = p.shop(['run', 'once', 'x']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(resultOf(r.stdout)).toEqual({ status: 'DONE', summary: 'login page built', pr: 42 });
    // Gemini CLI without --yolo (its default approval mode): Shop's server alone is trusted.
    if (cli === 'gemini') expect(p.invocations()[0]).toMatchObject({ permission_mode: 'default' });
  });

  it('ask with choices: the step waits on a choice for a person; shop answer hands the pick back to the session', () => {
    const p = project(cli);
    p.scenario({
      agents: {
        coder: [
          { via: 'mcp', ask: true, reason: 'Which database?', choices: ['Postgres', 'SQLite'] },
          { status: 'DONE', summary: 'used what the person chose' },
        ],
      },
    });
    const first = p.shop(['run', 'once', 'x']);
    expect(first.code).toBe(3);
    const id = runId(first);
    expect(first.stdout).toContain('Which database?');
    const ask = JSON.parse(p.shop(['inbox', '--json']).stdout)[0];
    expect(ask.question).toBe('Which database?');
    expect(
      ask.decisions.map((d: { type: string; prompt: string; options: { value: string }[] }) => [
        d.type,
        d.prompt,
        d.options.map((o) => o.value),
      ]),
    ).toEqual([['choice', 'Which database?', ['Postgres', 'SQLite']]]);
    const answered = p.shop(['answer', `${id}.1`, 'SQLite']);
    expect(answered.stderr).toBe('');
    expect(answered.code).toBe(0);
    expect(p.status(id).status).toBe('completed');
    const [, resumed] = p.invocations().filter((i) => i.mode === 'print');
    expect(resumed!.prompt).toContain('SQLite');
  });
});

describe('an ask with choices, answered by a pick', () => {
  it('shop signal --answers picks a choice: the pick is what the agent reads', () => {
    const p = project('claude');
    p.scenario({
      agents: {
        coder: [
          { via: 'mcp', ask: true, reason: 'Which database?', choices: ['Postgres', 'SQLite'] },
          { status: 'DONE', summary: 'ok' },
        ],
      },
    });
    const id = runId(p.shop(['run', 'once', 'x']));
    expect(p.shop(['signal', `${id}.1`, '--answers', '{"choice": "MySQL"}']).code).toBe(2);
    const picked = p.shop(['signal', `${id}.1`, '--answers', '{"choice": "SQLite"}']);
    expect(picked.stderr).toBe('');
    expect(picked.code).toBe(0);
    const [, resumed] = p.invocations().filter((i) => i.mode === 'print');
    expect(resumed!.prompt).toMatch(/^The person answered:\n\nSQLite\n/);
  });
});

describe('the trust rules hold over MCP', () => {
  it('a report aimed at another attempt (its server given another SHOP_SIGNAL_FILE) is refused: nothing written, the step fails saying why', () => {
    const p = project('claude');
    const planted = join(p.dir, '.shop', 'signals', 'someone-else.json');
    p.scenario({
      agents: {
        coder: [{ via: 'mcp', status: 'DONE', summary: 'forged', mcp_env: { SHOP_SIGNAL_FILE: planted } }],
      },
    });
    const r = p.shop(['run', 'once', 'x'], { env: { SHOP_RETRY_BASE_MS: '10' } });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/mcp report: refused: run \d+ call 1 takes no report from this step/);
    expect(existsSync(planted)).toBe(false);
  });

  it("a waiting call's own server takes no report: shop mcp answers with an error result, the ask stays open", () => {
    const p = project('claude');
    p.scenario({ agents: { coder: [{ status: 'NEEDS_HUMAN', reason: 'Which database?' }] } });
    const id = runId(p.shop(['run', 'once', 'x']));
    const signalPath = p.invocations()[0]!.signal_file!;
    const call = spawnSync(
      process.execPath,
      [
        HELPER,
        JSON.stringify({
          server: { command: process.execPath, args: [SHOP, 'mcp'] },
          inherit: 'all',
          tool: 'report',
          input: { status: 'DONE', summary: 'closing my own ask' },
        }),
      ],
      {
        cwd: p.dir,
        encoding: 'utf8',
        env: {
          PATH: process.env.PATH,
          HOME: process.env.HOME,
          SHOP_SIGNAL_FILE: signalPath,
          SHOP_RUN_ID: String(id),
          SHOP_CALL: '1',
        },
      },
    );
    const said = JSON.parse(lines(call.stdout).at(-1)!);
    expect(said.tools).toEqual(['report', 'ask']);
    expect(said.result.isError).toBe(true);
    expect(said.result.text).toMatch(/takes no report from this step/);
    expect(p.status(id).executions[0]).toMatchObject({ status: 'waiting_human' });
  });
});

describe("Claude Code's allowed tools", () => {
  it("Shop's tools join the agent's own allowed_tools (the stand-in runs an MCP tool only when allowed)", () => {
    // Shop adds the tools itself; the agent's own allowed_tools stay as they are.
    const p = project('claude');
    p.write('agents/coder.md', '---\nallowed_tools: ["Read"]\n---\nYou write code.\n');
    p.scenario({ agents: { coder: [{ via: 'mcp', status: 'DONE', summary: 'ok' }] } });
    const r = p.shop(['run', 'once', 'x']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const [call] = p.invocations().filter((i) => i.mode === 'print');
    expect(call!.allowed_tools).toEqual(['Read', 'mcp__shop__report', 'mcp__shop__ask']);
  });
});
