import Database from 'better-sqlite3';
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { agentRunning, lines, makeProject, runId, until, type Project, type Result } from './harness.js';
import { tempDir } from '../../packages/core/src/testing/temp-dir.js';

/** Agents whose only step goes wrong in one way each (stand-in scenario, keyed by agent). */
const scenario = {
  agents: {
    badjson: [{ raw: '{not json' }],
    halfjson: [{ raw: '{"status": "DO' }],
    silent: [{ via: 'none' as const }],
    erring: [{ is_error: true, result: 'API Error: 529 overloaded' }],
    slow: [{ sleep_ms: 60_000 }],
    reporter: [{ via: 'report' as const, summary: 'reported from the shell', fields: { pr: '42' } }],
    promiser: [{ via: 'promise' as const, summary: 'promised in the output' }],
  },
};

let p: Project;
const earlier: number[] = [];

beforeAll(() => {
  p = makeProject();
  p.scenario(scenario);
  for (const agent of Object.keys(scenario.agents)) {
    p.write(
      `agents/${agent}.md`,
      `---\ndescription: ${agent}\n${agent === 'slow' ? 'timeout: 1\n' : ''}---\nYou are ${agent}.\n`,
    );
    p.write(
      `workflows/${agent}.lua`,
      `function workflow(prompt)\n  local r = run("${agent}", "go")\n  return r.status .. ": " .. (r.summary or "")\nend\n`,
    );
  }
  p.write('workflows/ghostly.lua', 'function workflow(prompt)\n  return run("ghost").status\nend\n');
  p.write('workflows/syntax.lua', 'function workflow(prompt)\n  local x =\nend\n');
  p.write(
    'workflows/extra-arg.lua',
    'function workflow(prompt)\n  return run("reporter", "go", { timeout = 5 }).status\nend\n',
  );
  p.write('workflows/runtime.lua', 'function workflow(prompt)\n  local t = nil\n  return t.field\nend\n');
  p.write('workflows/earlier.lua', 'function workflow(prompt)\n  return run("coder", prompt).status\nend\n');
  const first = p.shop(['run', 'earlier', 'an earlier run']);
  expect(first.code).toBe(0);
  earlier.push(runId(first));
});

/** One line on stderr (no stack trace), the contract's exit code, and the store unharmed. */
function oneLine(r: Result, code: number, checkStore = true): string {
  const lines = r.stderr.split('\n').filter(Boolean);
  expect(lines, r.stderr).toHaveLength(1);
  expect(r.stderr).not.toMatch(/^\s+at /m);
  expect(lines[0]).toMatch(/^shop: /);
  expect(r.code, r.stderr).toBe(code);
  if (checkStore) storeIntact();
  return lines[0];
}

function storeIntact() {
  const ids = p.list().map((r) => r.id);
  for (const id of earlier) expect(ids).toContain(id);
  const db = new Database(join(p.dir, '.shop', 'shop.db'));
  try {
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
  } finally {
    db.close();
  }
}

/** `shop run <workflow>` that must create a run and fail it: returns the run id and the line. */
function failedRun(workflow: string, code: number, env?: NodeJS.ProcessEnv) {
  const r = p.shop(['run', workflow], { env });
  const id = runId(r);
  const line = oneLine(r, code);
  expect(line).toMatch(new RegExp(`^shop: run ${id} failed: `));
  expect(p.status(id)).toMatchObject({ status: 'failed', reason: line.replace(`shop: run ${id} failed: `, '') });
  earlier.push(id);
  return { id, line };
}

describe('bad signals and agents fail the run with one line', () => {
  it('malformed signal JSON names the signal file', () => {
    const { id, line } = failedRun('badjson', 1);
    expect(line).toContain(p.signalFile(id, '1', 'badjson'));
    expect(line).toContain('not valid JSON');
  });

  it('half-written signal JSON names the signal file', () => {
    const { id, line } = failedRun('halfjson', 1);
    expect(line).toContain(p.signalFile(id, '1', 'halfjson'));
    expect(line).toContain('not valid JSON');
  });

  it('an unknown agent fails the run: exit 1 (not "not found"), one line naming the missing file and the agents found', () => {
    const { line } = failedRun('ghostly', 1);
    expect(line).toContain('unknown agent "ghost": no agents/ghost.md or .claude/agents/ghost.md');
    const found = readdirSync(join(p.dir, 'agents'))
      .map((f) => basename(f, '.md'))
      .sort();
    expect(line).toContain(`(found: ${found.join(', ')})`);
  });

  it("an argument a host call does not take is refused at its line, not ignored (a timeout as run()'s third argument never applied)", () => {
    expect(failedRun('extra-arg', 1).line).toBe(
      `shop: run ${earlier.at(-1)} failed: extra-arg.lua:2: run(agent [, prompt | opts]) takes at most 2 arguments; got 3; give the prompt in opts to give both: run("coder", {prompt = "…", timeout = 60})`,
    );
  });

  it('a Lua runtime error exits 1 with name.lua:LINE', () => {
    expect(failedRun('runtime', 1).line).toMatch(/failed: runtime\.lua:3: attempt to index a nil value/);
  });

  it('a missing claude binary exits 1', () => {
    expect(failedRun('reporter', 1, { SHOP_CLAUDE_BIN: '/nonexistent/claude' }).line).toContain(
      'agent command not found: /nonexistent/claude',
    );
  });

  it('once claude is there, resume retries the step: a session that never started is started, not resumed', () => {
    const { id } = failedRun('reporter', 1, { SHOP_CLAUDE_BIN: '/nonexistent/claude' });
    const r = p.shop(['resume', String(id)]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const tries = p.invocations().filter((i) => i.run === String(id));
    // First --resume (Claude Code: "No conversation found"), then --session-id with the same id.
    expect(tries).toHaveLength(1);
    expect(tries[0]).toMatchObject({ resumed: false, session_id: p.status(id).executions[0].session_id });
  });

  it('an agent ending without a signal exits 1', () => {
    expect(failedRun('silent', 1).line).toMatch(
      /agent silent ended without a signal; its last words: .+ \(its output: .*\.stdout\.log\)$/,
    );
  });

  it("Claude's is_error exits 1 with Claude's message", () => {
    expect(failedRun('erring', 1).line).toContain('claude reported an error: API Error: 529 overloaded');
  });

  it('an agent past its timeout exits 1 and its process is gone', async () => {
    const started = Date.now();
    expect(failedRun('slow', 1).line).toContain('agent timed out after 1s');
    // Killed at its 1 s timeout, not waited for (it sleeps 60 s).
    expect(Date.now() - started).toBeLessThan(30_000);
    const slow = p.invocations().find((i) => i.agent === 'slow')!;
    await until('the timed-out agent to be gone', () => !agentRunning(slow), 5_000);
  });
});

describe('bad commands exit with one line and create nothing', () => {
  it('an unknown workflow exits 5 and lists the workflows', () => {
    const before = p.list().length;
    const line = oneLine(p.shop(['run', 'nope']), 5);
    const found = readdirSync(join(p.dir, 'workflows'))
      .filter((f) => f.endsWith('.lua'))
      .map((f) => basename(f, '.lua'))
      .sort();
    expect(line).toContain('unknown workflow "nope"');
    expect(line).toContain(`(found: ${found.join(', ')})`);
    expect(p.list()).toHaveLength(before);
  });

  it('a Lua syntax error exits 2 with file:line and creates no run', () => {
    const before = p.list().length;
    const r = p.shop(['run', 'syntax']);
    expect(oneLine(r, 2)).toMatch(/^shop: syntax\.lua:3: /);
    expect(r.stdout).not.toMatch(/started/);
    expect(p.list()).toHaveLength(before);
  });

  it('an unknown run id exits 5 for every command that takes one', () => {
    for (const args of [
      ['status', '999'],
      ['log', '999'],
      ['resume', '999'],
      ['signal', '999', '--status', 'DONE'],
      ['stop', '999', '--reason', 'x'],
      ['continue', '999'],
    ]) {
      expect(oneLine(p.shop(args), 5, false), args.join(' ')).toContain('no run 999');
    }
    storeIntact();
  });

  it('a non-numeric id, an unknown command or an unknown option exits 2', () => {
    for (const args of [
      ['status', 'abc'],
      ['resume', '1.5'],
      ['frobnicate'],
      ['list', '--bogus'],
      ['run', 'bugfix', '--fast'],
    ]) {
      expect(oneLine(p.shop(args), 2, false), args.join(' ')).toMatch(
        /"abc"|"1\.5"|unknown command "frobnicate"|unknown flag "--(bogus|fast)" for shop (list|run)/,
      );
    }
    storeIntact();
  });
});

describe('shop report', () => {
  it('outside an agent (no SHOP_SIGNAL_FILE) exits 2', () => {
    expect(oneLine(p.shop(['report', 'DONE'], { env: { SHOP_SIGNAL_FILE: undefined } }), 2)).toContain(
      'SHOP_SIGNAL_FILE is not set',
    );
  });

  it('shop mcp outside an agent (no SHOP_SIGNAL_FILE) exits 2 with one line, what is missing first', () => {
    const line = oneLine(p.shop(['mcp'], { env: { SHOP_SIGNAL_FILE: undefined } }), 2);
    expect(line).toMatch(/^shop: SHOP_SIGNAL_FILE is not set: shop mcp runs inside an agent step/);
  });

  it('writes valid JSON atomically, and refuses a bad status', () => {
    const dir = tempDir('shop-report-');
    const file = join(dir, '7.1.coder.json');
    const r = p.shop(['report', 'DONE', '--summary', 'x', '--field', 'pr=12'], { env: { SHOP_SIGNAL_FILE: file } });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ status: 'DONE', summary: 'x', pr: '12' });
    expect(readdirSync(dir)).toEqual(['7.1.coder.json']);
    expect(oneLine(p.shop(['report', 'done'], { env: { SHOP_SIGNAL_FILE: join(dir, 'other.json') } }), 2)).toContain(
      'status: must be an UPPER_CASE word',
    );
    expect(readdirSync(dir)).toEqual(['7.1.coder.json']);
  });

  it('NEEDS_HUMAN without the question for the person is refused (exit 2), nothing written', () => {
    const dir = tempDir('shop-report-');
    const file = join(dir, '7.1.coder.json');
    expect(oneLine(p.shop(['report', 'NEEDS_HUMAN'], { env: { SHOP_SIGNAL_FILE: file } }), 2)).toBe(
      'shop: NEEDS_HUMAN needs the question for the person: shop report NEEDS_HUMAN --reason "…"',
    );
    expect(
      oneLine(p.shop(['report', 'NEEDS_HUMAN', '--reason', '  '], { env: { SHOP_SIGNAL_FILE: file } }), 2),
    ).toContain('NEEDS_HUMAN needs the question');
    expect(readdirSync(dir)).toEqual([]);
    expect(p.shop(['report', 'NEEDS_HUMAN', '--reason', 'Which DB?'], { env: { SHOP_SIGNAL_FILE: file } }).code).toBe(
      0,
    );
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ status: 'NEEDS_HUMAN', reason: 'Which DB?' });
  });

  it("inside a step whose run's store is out of reach (an agent's sandbox with no network): the file only, said so, exit 0", () => {
    const dir = tempDir('shop-report-');
    const file = join(dir, '7.1.coder.json');
    const env = {
      SHOP_SIGNAL_FILE: file,
      SHOP_RUN_ID: '7',
      SHOP_CALL: '1',
      SHOP_DATABASE_URL: 'postgres://shop@127.0.0.1:1/shop',
    };
    const r = p.shop(['report', 'DONE', '--summary', 'x'], { env });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(lines(r.stdout)).toEqual([
      `reported DONE to ${file} only: the run's store is out of reach here (cannot connect to PostgreSQL at 127.0.0.1:1 (connection refused); check that the server runs and accepts connections there, and check SHOP_DATABASE_URL); the driver on this machine reads the file`,
    ]);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ status: 'DONE', summary: 'x' });
  });

  it("run from the agent's shell through PATH, completes the run", () => {
    const r = p.shop(['run', 'reporter']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const detail = p.status(runId(r));
    expect(detail).toMatchObject({ status: 'completed', result: 'DONE: reported from the shell' });
    expect(detail.executions[0].result).toMatchObject({ status: 'DONE', pr: '42' });
  });

  it('the <promise> fallback completes the run', () => {
    const r = p.shop(['run', 'promiser']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(p.status(runId(r))).toMatchObject({ status: 'completed', result: 'DONE: promised in the output' });
  });
});
