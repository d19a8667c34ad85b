import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../packages/core/src/testing/temp-dir.js';
import { until } from '../packages/core/src/testing/until.js';

/** The Codex and Gemini stand-ins, run directly (no engine): their flags, output, sessions and reports. */
const scripts = resolve(import.meta.dirname, '..', 'scripts');
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

interface Run {
  code: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  events: Record<string, any>[];
}

let root: string;
let repo: string;
let env: NodeJS.ProcessEnv;
beforeEach(() => {
  root = realpathSync(tempDir('shop-standins-'));
  dirs.push(root);
  repo = join(root, 'repo');
  mkdirSync(join(repo, '.git'), { recursive: true });
  mkdirSync(join(root, 'signals'));
  env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => !k.startsWith('SHOP_') && !k.startsWith('GEMINI_') && k !== 'CODEX_HOME',
    ),
  );
  Object.assign(env, {
    SHOP_AGENT: 'coder',
    SHOP_RUN_ID: '1',
    SHOP_CALL: '1',
    SHOP_SIGNAL_FILE: join(root, 'signals', '1.1.coder.json'),
    SHOP_STANDIN_LOG: join(root, 'standin.jsonl'),
    CODEX_HOME: join(root, 'codex-home'),
    GEMINI_CLI_HOME: join(root, 'gemini-home'),
  });
});

function run(
  cli: 'codex' | 'gemini' | 'claude',
  args: string[],
  opts: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string; timeout?: number } = {},
): Run {
  const r = spawnSync(process.execPath, [join(scripts, `${cli}-standin.mjs`), ...args], {
    cwd: opts.cwd ?? repo,
    env: { ...env, ...opts.env },
    input: opts.input ?? '',
    encoding: 'utf8',
    timeout: opts.timeout ?? 20_000,
  });
  const events = r.stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l));
  return { code: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr, events };
}

function scenario(s: unknown) {
  const file = join(root, 'scenario.json');
  writeFileSync(file, JSON.stringify(s));
  env.SHOP_STANDIN_SCENARIO = file;
}

const signal = () => JSON.parse(readFileSync(env.SHOP_SIGNAL_FILE!, 'utf8'));
const logLines = () =>
  readFileSync(env.SHOP_STANDIN_LOG!, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));

describe('codex stand-in', () => {
  const exec = (...args: string[]) => ['exec', '--json', ...args];

  it('says its version, and refuses what codex exec refuses, as clap does', () => {
    expect(run('codex', ['--version']).stdout).toBe('codex-cli 0.0.0 (Shop stand-in)\n');
    for (const flag of [['-a', 'never'], ['--full-auto'], ['--bogus']]) {
      const r = run('codex', [...exec(...flag), 'hi']);
      expect(r.code).toBe(2);
      expect(r.stderr.split('\n')[0]).toBe(`error: unexpected argument '${flag[0]}' found`);
      expect(r.stdout).toBe('');
    }
    const bad = run('codex', exec('-s', 'everything', 'hi'));
    expect([bad.code, bad.stderr.split('\n')[0]]).toEqual([
      2,
      "error: invalid value 'everything' for '--sandbox <SANDBOX_MODE>'",
    ]);
  });

  it('prints a step as thread, turn, items and usage, with no cost, and reports through the signal file', () => {
    scenario({
      agents: {
        coder: [
          {
            status: 'NEEDS_HUMAN',
            reason: 'which database?',
            stream: [
              { thought: 'thinking' },
              { tool: 'Bash', input: { command: 'ls', output: 'a\n' } },
              { tool: 'Edit', input: { file_path: 'a.ts' } },
              { text: 'on it' },
            ],
          },
        ],
      },
    });
    const r = run(
      'codex',
      exec(
        '-m',
        'gpt-5',
        '-s',
        'workspace-write',
        '-c',
        'developer_instructions="be brief"',
        '--add-dir',
        '/tmp',
        'fix it',
      ),
    );
    expect(r.code).toBe(0);
    const id = r.events[0].thread_id;
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(r.events.map((e) => [e.type, e.item?.type ?? null])).toEqual([
      ['thread.started', null],
      ['turn.started', null],
      ['item.completed', 'reasoning'],
      ['item.started', 'command_execution'],
      ['item.completed', 'command_execution'],
      ['item.started', 'file_change'],
      ['item.completed', 'file_change'],
      ['item.completed', 'agent_message'],
      ['item.completed', 'agent_message'],
      ['turn.completed', null],
    ]);
    expect(r.events[4].item).toEqual({
      id: 'item_1',
      type: 'command_execution',
      command: 'ls',
      aggregated_output: 'a\n',
      exit_code: 0,
      status: 'completed',
    });
    expect(r.events[8].item.text).toBe('which database?');
    expect(Object.keys(r.events[9].usage)).toEqual([
      'input_tokens',
      'cached_input_tokens',
      'cache_write_input_tokens',
      'output_tokens',
      'reasoning_output_tokens',
    ]);
    expect(r.stdout).not.toMatch(/cost/);
    expect(r.stderr).toContain('Reading additional input from stdin...');
    expect(signal()).toEqual({ status: 'NEEDS_HUMAN', reason: 'which database?' });
    const [line] = logLines();
    expect(line).toMatchObject({
      cli: 'codex',
      mode: 'print',
      agent: 'coder',
      call: '1',
      run: '1',
      session_id: id,
      resumed: false,
      remembered: 0,
      prompt: 'fix it',
      model: 'gpt-5',
      permission_mode: 'workspace-write',
      system_prompt: 'be brief',
      add_dirs: ['/tmp'],
      cwd: repo,
      argv: exec(
        '-m',
        'gpt-5',
        '-s',
        'workspace-write',
        '-c',
        'developer_instructions="be brief"',
        '--add-dir',
        '/tmp',
        'fix it',
      ),
    });
    expect(line.transcript).toMatch(
      new RegExp(`/codex-home/sessions/\\d{4}/\\d{2}/\\d{2}/rollout-[\\dT-]+-${id}\\.jsonl$`),
    );
    expect(JSON.parse(readFileSync(line.transcript, 'utf8').split('\n')[0])).toMatchObject({
      type: 'session_meta',
      payload: { id, cwd: repo },
    });
  });

  it('needs a git repository unless told to skip the check', () => {
    const outside = join(root, 'plain');
    mkdirSync(outside);
    const r = run('codex', exec('hi'), { cwd: outside });
    expect([r.code, r.stdout, r.stderr.trim().split('\n').pop()]).toEqual([
      1,
      '',
      'Not inside a trusted directory and --skip-git-repo-check was not specified.',
    ]);
    expect(run('codex', exec('--skip-git-repo-check', 'hi'), { cwd: outside }).code).toBe(0);
  });

  it('resumes its thread only where its rollout is, with the options resume takes', () => {
    const id = run('codex', exec('first')).events[0].thread_id;
    const late = run('codex', [...exec('resume', id), '-s', 'read-only', 'next']);
    expect([late.code, late.stderr.split('\n')[0]]).toEqual([2, "error: unexpected argument '-s' found"]);
    const r = run('codex', ['exec', '-s', 'read-only', '-C', repo, '--json', 'resume', id, 'next']);
    expect(r.code).toBe(0);
    expect(r.events[0]).toEqual({ type: 'thread.started', thread_id: id });
    expect(r.events.at(-1)!.usage.input_tokens).toBe(2400); // the thread's total, as Codex reports a resumed turn
    expect(logLines()[1]).toMatchObject({ cli: 'codex', session_id: id, resumed: true, remembered: 2, prompt: 'next' });
    const elsewhere = run('codex', exec('resume', id, 'next'), { env: { CODEX_HOME: join(root, 'other-home') } });
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.stdout).toBe('');
    expect(elsewhere.stderr).toContain(
      `Error: thread/resume: thread/resume failed: no rollout found for thread id ${id} (code -32600)`,
    );
    const ephemeral = run('codex', exec('--ephemeral', 'x')).events[0].thread_id;
    expect(run('codex', exec('resume', ephemeral, 'y')).code).toBe(1);
  });

  it('fails an overloaded turn with an error and turn.failed, and never gives up on the network', () => {
    scenario({ agents: { coder: [{ fail: 529 }, { fail: 'auth', pace_ms: 50 }] } });
    const r = run('codex', exec('hi'));
    const message = 'Selected model is at capacity. Please try a different model.';
    expect(r.code).toBe(1);
    expect(r.events.slice(2)).toEqual([
      { type: 'error', message },
      { type: 'turn.failed', error: { message } },
    ]);
    expect(existsSync(env.SHOP_SIGNAL_FILE!)).toBe(false);
    const offline = run('codex', exec('hi'), { timeout: 1500 });
    expect([offline.code, offline.signal]).toEqual([null, 'SIGTERM']);
    expect(offline.events[2].message).toMatch(/^Reconnecting\.\.\. 2\/5 \(stream disconnected before completion: /);
    expect(
      offline.events.filter(
        (e) => e.message === 'Reconnecting... waiting for network (Connection failed: error sending request)',
      ).length,
    ).toBeGreaterThan(3);
    expect(offline.events.some((e) => e.type === 'turn.failed' || e.type === 'turn.completed')).toBe(false);
    const status = run('codex', ['login', 'status']);
    expect([status.code, status.stdout]).toEqual([1, 'Not logged in\n']);
  });

  it('is an interactive session on `codex resume <id>`: answers a line, reports, leaves on /exit', () => {
    const id = run('codex', exec('first')).events[0].thread_id;
    const r = run('codex', ['resume', id], { input: 'use sqlite\n/exit\nnever read\n' });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('reported DONE');
    expect(signal()).toEqual({ status: 'DONE', summary: "done with the person's answer: use sqlite" });
    expect(
      logLines()
        .slice(1)
        .map((l) => [l.cli, l.mode, l.session_id, l.text ?? null]),
    ).toEqual([
      ['codex', 'interactive', id, null],
      ['codex', 'said', id, 'use sqlite'],
    ]);
  });
});

describe('gemini stand-in', () => {
  const headless = (prompt: string, ...args: string[]) => ['-p', prompt, '-o', 'stream-json', '--skip-trust', ...args];
  const sid = '6d21e50a-1111-4111-8111-111111111111';

  it('says its version and refuses what Gemini CLI refuses', () => {
    expect(run('gemini', ['--version']).stdout).toBe('0.0.0\n');
    const unknown = run('gemini', headless('hi', '--bogus'));
    expect([unknown.code, unknown.stderr.trim().split('\n').pop()]).toEqual([1, 'Unknown argument: bogus']);
    const both = run('gemini', headless('hi', '--resume', sid, '--session-id', sid));
    expect([both.code, both.stderr.split('\n')[0]]).toEqual([
      1,
      'The flags --resume, --session-id, and --session-file are mutually exclusive. Please provide only one.',
    ]);
  });

  it('checks auth before trust, and trust before anything else', () => {
    scenario({ agents: { coder: [{ fail: 'auth' }, { status: 'DONE' }] } });
    const auth = run('gemini', ['-p', 'hi', '-o', 'stream-json']);
    expect([auth.code, auth.stdout]).toEqual([41, '']);
    expect(auth.stderr.trim()).toBe(
      `Please set an Auth method in your ${join(root, 'gemini-home', '.gemini', 'settings.json')} or specify one of the following environment variables before running: GEMINI_API_KEY, GOOGLE_GENAI_USE_VERTEXAI, GOOGLE_GENAI_USE_GCA`,
    );
    const untrusted = run('gemini', ['-p', 'hi', '-o', 'stream-json']);
    expect([untrusted.code, untrusted.stdout]).toEqual([55, '']);
    expect(untrusted.stderr).toMatch(
      /^Gemini CLI is not running in a trusted directory\. To proceed, either use `--skip-trust`/,
    );
    expect(run('gemini', ['-p', 'hi', '-o', 'stream-json'], { env: { GEMINI_CLI_TRUST_WORKSPACE: 'true' } }).code).toBe(
      0,
    );
  });

  it('prints a step as init, messages, tool use and result, with no cost, and reports through the signal file', () => {
    scenario({
      agents: {
        coder: [
          {
            status: 'NEEDS_HUMAN',
            reason: 'which database?',
            stream: [{ text: 'on it' }, { tool: 'Bash', input: { command: 'ls', output: 'a' } }],
          },
        ],
      },
    });
    const r = run(
      'gemini',
      headless('fix it', '-m', 'gemini-2.5-flash', '--session-id', sid, '--include-directories', '/a,/b'),
    );
    expect(r.code).toBe(0);
    expect(r.events.map((e) => [e.type, e.role ?? e.status ?? null])).toEqual([
      ['init', null],
      ['message', 'user'],
      ['message', 'assistant'],
      ['tool_use', null],
      ['tool_result', 'error'],
      ['message', 'assistant'],
      ['result', 'success'],
    ]);
    expect(r.events.every((e) => typeof e.timestamp === 'string')).toBe(true);
    expect(r.events[0]).toMatchObject({ session_id: sid, model: 'gemini-2.5-flash' });
    expect(r.events[4].error.type).toBe('tool_not_registered'); // run_shell_command needs --yolo headless
    expect(r.events[5]).toMatchObject({ content: 'which database?', delta: true });
    expect(Object.keys(r.events[6].stats)).toEqual(
      expect.arrayContaining(['total_tokens', 'input_tokens', 'output_tokens', 'duration_ms', 'tool_calls']),
    );
    expect(r.events[6].session_id).toBeUndefined();
    expect(r.stdout).not.toMatch(/cost/);
    expect(signal()).toEqual({ status: 'NEEDS_HUMAN', reason: 'which database?' });
    expect(logLines()[0]).toMatchObject({
      cli: 'gemini',
      mode: 'print',
      agent: 'coder',
      session_id: sid,
      resumed: false,
      prompt: 'fix it',
      model: 'gemini-2.5-flash',
      permission_mode: 'default',
      include_directories: ['/a', '/b'],
      skip_trust: true,
    });
    expect(
      logLines()[0].transcript.startsWith(join(root, 'gemini-home', '.gemini', 'tmp', 'repo', 'chats', 'session-')),
    ).toBe(true);
    expect(logLines()[0].transcript).toMatch(/session-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-6d21e50a\.jsonl$/);
    const yolo = run('gemini', headless('again', '-y', '--resume', sid));
    expect(yolo.events.find((e) => e.type === 'tool_result')?.status).toBe('success');
  });

  it('resumes a session only in its project and home', () => {
    run('gemini', headless('first', '--session-id', sid));
    const r = run('gemini', headless('next', '--resume', sid));
    expect(r.code).toBe(0);
    expect(r.events[0].session_id).toBe(sid);
    expect(logLines()[1]).toMatchObject({ cli: 'gemini', session_id: sid, resumed: true, remembered: 2 });
    const missing = 'Error resuming session: No previous sessions found for this project.\n';
    const otherHome = run('gemini', headless('next', '--resume', sid), {
      env: { GEMINI_CLI_HOME: join(root, 'elsewhere') },
    });
    expect([otherHome.code, otherHome.stdout, otherHome.stderr]).toEqual([42, '', missing]);
    mkdirSync(join(root, 'other'));
    expect(
      run('gemini', headless('own', '--session-id', '7e21e50a-1111-4111-8111-111111111111'), {
        cwd: join(root, 'other'),
      }).code,
    ).toBe(0);
    expect(run('gemini', headless('next', '--resume', sid), { cwd: join(root, 'other') }).code).toBe(42);
    expect(run('gemini', headless('next', '--resume', '11111111-1111-4111-8111-111111111111')).code).toBe(42);
  });

  it('fails with retries on stderr and an error result', () => {
    scenario({
      agents: {
        coder: [
          { fail: 429, pace_ms: 1 },
          { fail: 'network', pace_ms: 1 },
        ],
      },
    });
    const r = run('gemini', headless('hi'));
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^Attempt 1 failed with status 429\. Retrying with backoff\.\.\. ApiError: /);
    expect(r.events.map((e) => e.type)).toEqual(['init', 'message', 'result']);
    expect(r.events[2]).toMatchObject({ status: 'error', error: { type: 'ApiError' } });
    expect(r.events[2].error.message).toContain('RESOURCE_EXHAUSTED');
    const offline = run('gemini', headless('hi'));
    expect(offline.code).toBe(1);
    expect(offline.stderr.split('\n')[0]).toBe(
      'Attempt 1 failed. Retrying with backoff... Error: exception TypeError: fetch failed sending request',
    );
    expect(offline.events.at(-1)).toMatchObject({ type: 'result', status: 'error' });
    expect(existsSync(env.SHOP_SIGNAL_FILE!)).toBe(false);
  });

  it('is an interactive session on `gemini --resume <id>`: answers a line, reports, leaves on /quit', () => {
    run('gemini', headless('first', '--session-id', sid));
    const r = run('gemini', ['--resume', sid], { input: 'use sqlite\n/quit\nnever read\n' });
    expect(r.code).toBe(0);
    expect(signal()).toEqual({ status: 'DONE', summary: "done with the person's answer: use sqlite" });
    expect(
      logLines()
        .slice(1)
        .map((l) => [l.cli, l.mode, l.text ?? null]),
    ).toEqual([
      ['gemini', 'interactive', null],
      ['gemini', 'said', 'use sqlite'],
    ]);
  });
});

describe('claude stand-in', () => {
  it('logs which CLI it stood in for', () => {
    expect(
      run('claude', ['-p', 'hi', '--session-id', '6d21e50a-2222-4222-8222-222222222222'], {
        env: { CLAUDE_CONFIG_DIR: join(root, 'claude') },
      }).code,
    ).toBe(0);
    expect(logLines()[0]).toMatchObject({ cli: 'claude', mode: 'print', prompt: 'hi' });
  });

  it("runs a step's sh to its end (logged as shell) and leaves its leave running in a session of its own", async () => {
    const left = join(root, 'left.txt');
    scenario({
      agents: {
        coder: [
          {
            sh: 'echo "in $SHOP_CALL"; echo oops >&2; exit 4',
            leave: `sleep 0.3; echo $$ $(ps -o sid= -p $$) > ${left}`,
          },
        ],
      },
    });
    expect(
      run('claude', ['-p', 'hi', '--session-id', '6d21e50a-3333-4333-8333-333333333333'], {
        env: { CLAUDE_CONFIG_DIR: join(root, 'claude') },
      }).code,
    ).toBe(0);
    expect(logLines()[0]).toMatchObject({ shell: { code: 4, stdout: 'in 1\n', stderr: 'oops\n' } });
    expect(signal()).toMatchObject({ status: 'DONE' });
    // Still running after the stand-in exited, as the leader of a session of its own.
    await until('the leftover to write its file', () => existsSync(left), 5_000);
    const [pid, sid] = readFileSync(left, 'utf8').trim().split(/\s+/);
    expect(sid).toBe(pid);
  });

  it("writes a step's files in its cwd before it reports, and deletes those given no text", () => {
    mkdirSync(join(repo, 'agents'));
    writeFileSync(join(repo, 'agents', 'old.md'), 'old');
    scenario({
      agents: {
        coder: [
          {
            status: 'NEEDS_HUMAN',
            reason: 'ok?',
            write: [
              { path: 'agents/deployer.md', text: '---\n---\nShip.\n' },
              { path: 'agents/old.md', text: null },
            ],
          },
        ],
      },
    });
    expect(
      run('claude', ['-p', 'hi', '--session-id', '6d21e50a-4444-4444-8444-444444444444'], {
        env: { CLAUDE_CONFIG_DIR: join(root, 'claude') },
      }).code,
    ).toBe(0);
    expect(readFileSync(join(repo, 'agents', 'deployer.md'), 'utf8')).toBe('---\n---\nShip.\n');
    expect(existsSync(join(repo, 'agents', 'old.md'))).toBe(false);
    expect(signal()).toEqual({ status: 'NEEDS_HUMAN', reason: 'ok?' });
  });
});

describe('claude stand-in: tool gates (PreToolUse hooks, defer, resume)', () => {
  const sid = '6d21e50a-3333-4333-8333-333333333333';
  const bash = { name: 'Bash', input: { command: 'rm -rf build', description: 'clean' } };
  const questions = [
    {
      question: 'Which DB should we use?',
      header: 'Database',
      options: [
        { label: 'Postgres', description: 'relational' },
        { label: 'SQLite', description: 'embedded' },
      ],
      multiSelect: false,
    },
  ];
  const stream = ['--output-format', 'stream-json', '--verbose'];
  let settings: string;
  beforeEach(() => {
    // The gate: keeps each stdin it gets, answers with the file `answer` (none: empty), or exits 2 with `stderr`.
    const hook = join(root, 'gate.sh');
    writeFileSync(
      hook,
      '#!/bin/sh\ncat >> "$GATE_DIR/stdin.jsonl"; echo >> "$GATE_DIR/stdin.jsonl"\n' +
        'if [ -f "$GATE_DIR/stderr" ]; then cat "$GATE_DIR/stderr" >&2; exit 2; fi\ncat "$GATE_DIR/answer" 2>/dev/null; exit 0\n',
    );
    chmodSync(hook, 0o755);
    settings = JSON.stringify({
      hooks: { PreToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: hook }] }] },
    });
    Object.assign(env, { CLAUDE_CONFIG_DIR: join(root, 'claude'), GATE_DIR: root });
  });
  const answer = (decision: 'allow' | 'deny' | 'defer', more: Record<string, unknown> = {}) =>
    writeFileSync(
      join(root, 'answer'),
      JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: decision, ...more } }),
    );
  const hookInputs = () =>
    existsSync(join(root, 'stdin.jsonl'))
      ? readFileSync(join(root, 'stdin.jsonl'), 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l))
      : [];
  const start = (...more: string[]) =>
    run('claude', ['--settings', settings, '-p', 'clean up', '--session-id', sid, ...stream, ...more]);
  const resume = (...more: string[]) =>
    run('claude', ['--settings', settings, '-p', '--resume', sid, ...stream, ...more]);
  // Claude Code's result line; its usage fields (usage, modelUsage, …) are the spend tests' business.
  const deferredLine = (id: string, call: { name: string; input: unknown }, totalCost = 0.0125) =>
    expect.objectContaining({
      type: 'result',
      subtype: 'success',
      is_error: false,
      stop_reason: 'tool_deferred',
      terminal_reason: 'tool_deferred',
      result: '',
      num_turns: 1,
      session_id: sid,
      permission_denials: [],
      deferred_tool_use: { id, name: call.name, input: call.input },
      total_cost_usd: totalCost,
    }) as unknown;

  it('defers: prints the tool_use, then the tool_deferred result as its last line, exits 0 and reports nothing', () => {
    scenario({ agents: { coder: [{ status: 'DONE', tool_call: bash }] } });
    answer('defer');
    const r = start();
    expect(r.code).toBe(0);
    const use = r.events.at(-2)!.message.content[0];
    expect(use).toMatchObject({ type: 'tool_use', name: 'Bash', input: bash.input });
    expect(use.id).toMatch(/^toolu_[0-9a-f]{24}$/);
    expect(JSON.parse(r.stdout.trim().split('\n').at(-1)!)).toEqual(deferredLine(use.id, bash));
    expect(existsSync(env.SHOP_SIGNAL_FILE!)).toBe(false);
    const [input] = hookInputs();
    expect(input).toEqual({
      session_id: sid,
      transcript_path: logLines()[0].transcript,
      cwd: repo,
      prompt_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      permission_mode: 'default',
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_input: bash.input,
      tool_use_id: use.id,
    });
    expect(logLines()[0].tool).toEqual({
      id: use.id,
      name: 'Bash',
      input: bash.input,
      decision: 'defer',
      reason: null,
    });
    expect(logLines()[0].settings).toEqual(JSON.parse(settings));
  });

  it('resumed with no prompt, runs the pending call again through the hook: allowed with updatedInput, the new input runs and the step reports', () => {
    scenario({
      agents: {
        coder: [
          { status: 'DONE', tool_call: bash },
          { status: 'DONE', summary: 'second step' },
          { status: 'DONE', summary: 'third step' },
        ],
      },
    });
    answer('defer');
    const id = start().events.at(-1)!.deferred_tool_use.id;
    answer('allow', { permissionDecisionReason: 'approved', updatedInput: { command: 'rm -rf build/tmp' } });
    const r = resume();
    expect(r.code).toBe(0);
    expect(hookInputs()[1]).toEqual({ ...hookInputs()[0], prompt_id: undefined });
    expect('prompt_id' in hookInputs()[1]).toBe(false);
    expect(r.events.find((e) => e.type === 'user')!.message.content[0]).toEqual({
      type: 'tool_result',
      tool_use_id: id,
      content: 'ran: rm -rf build/tmp',
      is_error: false,
    });
    expect(r.events.find((e) => e.type === 'result')).toMatchObject({
      is_error: false,
      result: 'ran: rm -rf build/tmp',
      permission_denials: [],
    });
    expect(r.events.at(-1)).toMatchObject({ type: 'command_lifecycle', state: 'completed' }); // the result is not the last line
    expect(signal()).toEqual({ status: 'DONE', summary: 'ran: rm -rf build/tmp' });
    expect(logLines()[1]).toMatchObject({
      resumed: true,
      prompt: null,
      pending: true,
      tool: { id, name: 'Bash', input: { command: 'rm -rf build/tmp' }, decision: 'allow', reason: 'approved' },
    });
    // Decided, it is no longer pending; and the resume took no step of its own: the next prompt takes the second.
    rmSync(join(root, 'answer'));
    expect(resume().code).toBe(1);
    expect(run('claude', ['-p', 'next', '--resume', sid]).code).toBe(0);
    expect(signal()).toEqual({ status: 'DONE', summary: 'second step' });
  });

  it('resumed and denied: the model sees the hook error, the step reports denied: <reason>', () => {
    scenario({
      agents: { coder: [{ status: 'DONE', denied_status: 'NEEDS_HUMAN', summary: 'cleaned', tool_call: bash }] },
    });
    answer('defer');
    const id = start().events.at(-1)!.deferred_tool_use.id;
    answer('deny', { permissionDecisionReason: 'not on main' });
    const r = resume();
    expect(r.code).toBe(0);
    expect(r.events.find((e) => e.type === 'user')!.message.content[0]).toEqual({
      type: 'tool_result',
      tool_use_id: id,
      content: 'PreToolUse:Bash hook error: not on main',
      is_error: true,
    });
    expect(r.events.find((e) => e.type === 'result')!.permission_denials).toEqual([
      { tool_name: 'Bash', tool_use_id: id, tool_input: bash.input },
    ]);
    expect(signal()).toEqual({ status: 'NEEDS_HUMAN', summary: 'denied: not on main' });
    expect(logLines()[1].tool).toEqual({
      id,
      name: 'Bash',
      input: bash.input,
      decision: 'deny',
      reason: 'not on main',
    });
  });

  it('resumed and deferred again: the same tool_deferred result, nothing reported, still pending', () => {
    scenario({ agents: { coder: [{ status: 'DONE', tool_call: bash }] } });
    answer('defer');
    const id = start().events.at(-1)!.deferred_tool_use.id;
    const again = resume();
    expect(again.code).toBe(0);
    // Its total carries the first process's on, as Claude Code's does from the saved transcript.
    expect(again.events.find((e) => e.type === 'result')).toEqual(deferredLine(id, bash, 0.025));
    expect(existsSync(env.SHOP_SIGNAL_FILE!)).toBe(false);
    expect(hookInputs().map((i) => i.tool_use_id)).toEqual([id, id]);
    answer('allow');
    expect(resume().code).toBe(0);
    expect(signal()).toEqual({ status: 'DONE', summary: 'ran: rm -rf build' });
  });

  it('resumed with a prompt: the pending call is decided first, then the prompt takes its step', () => {
    scenario({
      agents: {
        coder: [
          { status: 'DONE', tool_call: bash },
          { status: 'DONE', summary: 'second step' },
        ],
      },
    });
    answer('defer');
    const id = start().events.at(-1)!.deferred_tool_use.id;
    answer('deny', { permissionDecisionReason: 'no' });
    const r = run('claude', ['--settings', settings, '-p', 'go on', '--resume', sid, ...stream]);
    expect(r.code).toBe(0);
    expect(r.events.filter((e) => e.type === 'system')).toHaveLength(1);
    expect(r.events.find((e) => e.type === 'user')!.message.content[0]).toMatchObject({
      tool_use_id: id,
      is_error: true,
    });
    expect(signal()).toEqual({ status: 'DONE', summary: 'second step' });
    expect(logLines()[1]).toMatchObject({ prompt: 'go on', pending_tool: { id, decision: 'deny', reason: 'no' } });
  });

  it('has no AskUserQuestion in plain -p: unavailable, no hook runs, the step reports', () => {
    scenario({
      agents: { coder: [{ status: 'NEEDS_HUMAN', tool_call: { name: 'AskUserQuestion', input: { questions } } }] },
    });
    answer('defer');
    const r = start();
    expect(r.code).toBe(0);
    expect(r.events.find((e) => e.type === 'user')!.message.content[0].content).toBe(
      '<tool_use_error>Error: No such tool available: AskUserQuestion. AskUserQuestion is disabled for this session, in subagents as well as here.</tool_use_error>',
    );
    expect(hookInputs()).toEqual([]);
    expect(signal()).toEqual({ status: 'NEEDS_HUMAN', summary: 'unavailable: AskUserQuestion' });
    expect(logLines()[0].tool).toMatchObject({ name: 'AskUserQuestion', decision: 'unavailable' });
  });

  it('asks with --permission-prompt-tool stdio: deferred, then answered through updatedInput', () => {
    scenario({ agents: { coder: [{ status: 'DONE', tool_call: { name: 'AskUserQuestion', input: { questions } } }] } });
    answer('defer');
    const first = start('--permission-prompt-tool', 'stdio');
    expect(first.events[0].tools).toContain('AskUserQuestion');
    const id = first.events.at(-1)!.deferred_tool_use.id;
    expect(first.events.at(-1)).toEqual(deferredLine(id, { name: 'AskUserQuestion', input: { questions } }));
    // Resumed without the flag, the deferred call cannot go on: Claude Code's tool_deferred_unavailable.
    const without = resume();
    expect(without.code).toBe(1);
    expect(without.events.find((e) => e.type === 'result')).toMatchObject({
      is_error: true,
      stop_reason: 'tool_deferred_unavailable',
      deferred_tool_use: { id },
    });
    expect(existsSync(env.SHOP_SIGNAL_FILE!)).toBe(false);
    const answers = { 'Which DB should we use?': 'SQLite' };
    answer('allow', { updatedInput: { questions, answers } });
    const r = resume('--permission-prompt-tool', 'stdio');
    expect(r.code).toBe(0);
    expect(r.events.find((e) => e.type === 'user')!.message.content[0].content).toBe(
      'Your questions have been answered: "Which DB should we use?"="SQLite". You can now continue with these answers in mind.',
    );
    expect(signal()).toEqual({ status: 'DONE', summary: 'answered: {"Which DB should we use?":"SQLite"}' });
    expect(logLines().at(-1)!.tool).toMatchObject({
      name: 'AskUserQuestion',
      decision: 'allow',
      input: { questions, answers },
    });
  });

  it('with no hooks the tool just runs; a hook that fails or prints no JSON does not stop it; exit 2 denies', () => {
    scenario({ agents: { coder: [{ status: 'DONE', tool_call: { name: 'Bash', input: { command: 'ls' } } }] } });
    const none = run('claude', ['-p', 'hi', '--session-id', sid, '--output-format', 'json']);
    expect(none.code).toBe(0);
    expect(signal()).toEqual({ status: 'DONE', summary: 'ran: ls' });
    expect(logLines()[0].tool).toMatchObject({
      name: 'Bash',
      input: { command: 'ls' },
      decision: 'none',
      reason: null,
    });
    const other = (command: string) =>
      JSON.stringify({
        hooks: {
          PreToolUse: [
            { matcher: 'Edit|Write', hooks: [{ type: 'command', command: 'exit 2' }] },
            { matcher: 'Ba.*', hooks: [{ type: 'command', command }] },
          ],
        },
      });
    writeFileSync(join(root, 'answer'), 'not json');
    expect(run('claude', ['--settings', other(join(root, 'gate.sh')), '-p', 'hi', '--resume', sid]).code).toBe(0);
    expect(logLines()[1].tool).toMatchObject({ decision: 'none', reason: expect.stringContaining('not JSON') });
    expect(run('claude', ['--settings', other('/nonexistent/gate'), '-p', 'hi', '--resume', sid]).code).toBe(0);
    expect(logLines()[2].tool).toMatchObject({ decision: 'none', reason: expect.stringContaining('exit 127') });
    writeFileSync(join(root, 'stderr'), 'no rm here\n');
    expect(run('claude', ['--settings', other(join(root, 'gate.sh')), '-p', 'hi', '--resume', sid]).code).toBe(0);
    expect(signal()).toEqual({ status: 'DONE', summary: 'denied: no rm here' });
    const bad = run('claude', ['--settings', '{bad', '-p', 'hi', '--session-id', sid]);
    expect([bad.code, bad.stdout, bad.stderr]).toEqual([
      1,
      '',
      `Error: Settings file not found: ${join(repo, '{bad')}\n`,
    ]);
  });

  it('a hook that ends before reading its input is judged by its exit, however the write to it races (a 1 MB input always loses)', () => {
    scenario({
      agents: {
        coder: [{ status: 'DONE', tool_call: { name: 'Bash', input: { command: `echo ${'x'.repeat(1024 * 1024)}` } } }],
      },
    });
    const settings = JSON.stringify({
      hooks: { PreToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: '/nonexistent/gate' }] }] },
    });
    expect(run('claude', ['--settings', settings, '-p', 'hi', '--session-id', sid]).code).toBe(0);
    expect(logLines()[0].tool).toMatchObject({ decision: 'none', reason: expect.stringContaining('exit 127') });
  });
});
