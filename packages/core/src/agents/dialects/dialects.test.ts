import { describe, expect, it } from 'vitest';
import { sinceBefore } from '../reported-usage.js';
import type { AgentDef } from '../agent-def.js';
import { systemPrompt } from './claude.js';
import { dialectOf } from './dialect-of.js';
import { cliBin, type DialectStep, type EventReader } from './dialect.js';

const agent = (over: Partial<AgentDef> = {}): AgentDef => ({
  name: 'coder',
  file: 'coder.md',
  instructions: 'Be careful.',
  allowedTools: [],
  ...over,
});
const step = (over: Partial<DialectStep> = {}): DialectStep => ({
  bin: 'claude',
  agent: agent(),
  prompt: 'fix the bug',
  system: systemPrompt('Be careful.'),
  sessionId: 'sess-1',
  resume: false,
  cwd: '/repo',
  writable: ['/repo/.shop/signals'],
  ...over,
});
const argvOf = (over: Partial<DialectStep> = {}) => {
  const s = step(over);
  return dialectOf(s.agent).argv(s);
};
const readAll = (reader: EventReader, lines: unknown[]) => {
  for (const l of lines) reader.read(typeof l === 'string' ? l : JSON.stringify(l));
  return reader;
};

describe('Claude Code', () => {
  it("produces Claude Code's real flags for a new step", () => {
    const argv = argvOf({
      agent: agent({
        model: 'sonnet',
        permissionMode: 'acceptEdits',
        allowedTools: ['Read', 'Bash(git diff:*)'],
        askUserQuestion: false,
      }),
    });
    expect(argv.slice(0, 9)).toEqual([
      'claude',
      '-p',
      'fix the bug',
      '--session-id',
      'sess-1',
      '--output-format',
      'stream-json',
      '--verbose',
      '--append-system-prompt',
    ]);
    expect(argv[9]).toMatch(/^Be careful\.\n\n## Reporting back to Shop/);
    // The signal file's path stays off the command line (ps shows it to every process): SHOP_SIGNAL_FILE carries it.
    expect(argv[9]).toContain('SHOP_SIGNAL_FILE');
    expect(argv.join(' ')).not.toContain('/repo/.shop/signals');
    expect(argv.slice(10)).toEqual([
      '--model',
      'sonnet',
      '--permission-mode',
      'acceptEdits',
      '--allowed-tools',
      'Read',
      'Bash(git diff:*)',
    ]);
  });

  it('resumes the same session with --resume, and a call model overrides the agent model', () => {
    const argv = argvOf({
      bin: '/bin/claude',
      resume: true,
      model: 'opus',
      agent: agent({ model: 'sonnet', askUserQuestion: false }),
    });
    expect(argv.slice(0, 5)).toEqual(['/bin/claude', '-p', 'fix the bug', '--resume', 'sess-1']);
    expect(argv).not.toContain('--session-id');
    expect(argv.slice(-2)).toEqual(['--model', 'opus']);
    expect(argv).not.toContain('--permission-mode');
  });

  it('hands a person the session with claude --resume; tries a missing session afresh and a taken one as a resume', () => {
    const d = dialectOf(agent());
    expect(d.handOff('sess-1')).toEqual(['--resume', 'sess-1']);
    expect(d.retry!({ resume: true, exitCode: 1, stderr: 'No conversation found with session ID: sess-1' })).toEqual({
      resume: false,
    });
    expect(d.retry!({ resume: false, exitCode: 1, stderr: 'Error: Session ID sess-1 is already in use.' })).toEqual({
      resume: true,
    });
    expect(d.retry!({ resume: false, exitCode: 1, stderr: 'something else' })).toBeNull();
    // A decision handed to a call that already ran (its driver died after): Claude Code asks for a prompt.
    const stale =
      'Error: No deferred tool marker found in the resumed session. Either the session was not deferred, the marker is stale (tool already ran), or it exceeds the tail-scan window. Provide a prompt to continue the conversation.';
    expect(d.retry!({ resume: true, exitCode: 1, stderr: stale, decidingGate: true })).toEqual({
      resume: true,
      prompt: 'Continue the task and report when done.',
    });
    expect(d.retry!({ resume: true, exitCode: 1, stderr: stale })).toBeNull();
  });
});

describe('Claude Code with gates', () => {
  it("passes Shop's PreToolUse hook in --settings (and enables AskUserQuestion when gated); a decision resumes with no prompt", () => {
    const argv = argvOf({
      agent: agent({
        gates: [
          { hold: ['Bash(git push --force*)'], allow: [] },
          { hold: ['AskUserQuestion'], allow: [] },
        ],
      }),
    });
    const settings = JSON.parse(argv[argv.indexOf('--settings') + 1]!);
    expect(settings).toEqual({
      hooks: { PreToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: 'shop gate' }] }] },
    });
    expect(argv.slice(argv.indexOf('--permission-prompt-tool'), argv.indexOf('--permission-prompt-tool') + 2)).toEqual([
      '--permission-prompt-tool',
      'stdio',
    ]);
    expect(argvOf({ agent: agent({ askUserQuestion: false }) })).not.toContain('--settings');
    const deciding = argvOf({
      agent: agent({ gates: [{ hold: ['Bash(rm *)'], allow: [] }], askUserQuestion: false }),
      resume: true,
      decidingGate: true,
    });
    expect(deciding.slice(0, 4)).toEqual(['claude', '-p', '--resume', 'sess-1']);
    expect(deciding).not.toContain('--permission-prompt-tool');
  });

  it('AskUserQuestion is on by default: a hook that sees it alone, and the permission prompt tool; the agent may opt out', () => {
    const argv = argvOf();
    const settings = JSON.parse(argv[argv.indexOf('--settings') + 1]!);
    expect(settings.hooks.PreToolUse[0].matcher).toBe('AskUserQuestion');
    expect(argv.slice(-2)).toEqual(['--permission-prompt-tool', 'stdio']);
    const quiet = argvOf({ agent: agent({ askUserQuestion: false }) });
    expect(quiet).not.toContain('--permission-prompt-tool');
    expect(quiet).not.toContain('--settings');
  });

  it('reads a deferred tool call from the result', () => {
    const r = readAll(dialectOf(agent()).reader(), [
      {
        type: 'result',
        subtype: 'success',
        is_error: false,
        stop_reason: 'tool_deferred',
        result: '',
        num_turns: 1,
        deferred_tool_use: { id: 'toolu_1', name: 'Bash', input: { command: 'git push --force' } },
      },
    ]);
    expect(r.result?.deferred).toEqual({ id: 'toolu_1', name: 'Bash', input: { command: 'git push --force' } });
  });
});

describe('a command: template', () => {
  it('fills known placeholders and keeps unknown ones; no session to hand a person', () => {
    const command = [
      'aider',
      '--message',
      '{prompt}',
      '--session={session_id}',
      '--model',
      '{model}',
      '--in',
      '{cwd}',
      '{other}',
    ];
    expect(argvOf({ agent: agent({ command, model: 'gpt' }) })).toEqual([
      'aider',
      '--message',
      'fix the bug',
      '--session=sess-1',
      '--model',
      'gpt',
      '--in',
      '/repo',
      '{other}',
    ]);
    expect(argvOf({ agent: agent({ command: ['x', '{system_prompt}'] }) })[1]).toContain('shop report DONE');
    expect(dialectOf(agent({ command })).handOff('s')).toBeNull();
  });
});

describe('Codex', () => {
  const codex = agent({ cli: 'codex' });
  it('starts `codex exec --json` on a thread it names, the instructions in the first prompt, writes sandboxed to the workspace and the signal folder', () => {
    const argv = argvOf({ bin: 'codex', agent: codex, sessionId: null });
    expect(argv.slice(0, 4)).toEqual(['codex', 'exec', '--json', '--skip-git-repo-check']);
    expect(argv.slice(4, 10)).toEqual(['-s', 'workspace-write', '--add-dir', '/repo/.shop/signals', '-C', '/repo']);
    expect(argv.at(-1)).toMatch(/^Be careful\.\n\n## Reporting back to Shop[\s\S]*\n---\n\nfix the bug$/);
    expect(argv).not.toContain('resume');
  });

  it('resumes with `exec … resume <thread> <prompt>`, its sandbox and folder flags before `resume`', () => {
    const argv = argvOf({
      bin: 'codex',
      agent: agent({ cli: 'codex', model: 'gpt-5' }),
      sessionId: 'th-1',
      resume: true,
      prompt: 'the person says: go',
    });
    expect(argv.slice(-3)).toEqual(['resume', 'th-1', 'the person says: go']);
    const at = argv.indexOf('resume');
    for (const flag of ['-s', '--add-dir', '-C', '-m']) expect(argv.indexOf(flag)).toBeLessThan(at);
    expect(argvOf({ bin: 'codex', agent: agent({ cli: 'codex', permissionMode: 'bypassPermissions' }) })).toContain(
      '--dangerously-bypass-approvals-and-sandbox',
    );
    expect(dialectOf(codex).handOff('th-1')).toEqual(['resume', 'th-1']);
    expect(dialectOf(codex).names).toBe('cli');
  });

  it('reads its thread, progress and final message; a failed turn is an error; waiting for the network is a stall', () => {
    const r = readAll(dialectOf(codex).reader(), [
      { type: 'thread.started', thread_id: '01a20c1f-6155-70c0-97ea-763245366d7d' },
      { type: 'turn.started' },
      {
        type: 'item.started',
        item: { id: 'item_0', type: 'command_execution', command: "/bin/bash -lc 'npm test'", status: 'in_progress' },
      },
      { type: 'item.completed', item: { id: 'item_1', type: 'agent_message', text: 'All green.\nDone.' } },
      { type: 'turn.completed', usage: { input_tokens: 20, cached_input_tokens: 4, output_tokens: 10 } },
    ]);
    expect(r.sessionId).toBe('01a20c1f-6155-70c0-97ea-763245366d7d');
    expect(r.activity).toBe('All green.');
    expect(r.result).toMatchObject({ isError: false, text: 'All green.\nDone.', costUsd: null, numTurns: 1 });
    // The thread's tokens so far, its input counting the cached part: Shop's input is the fresh part.
    expect(r.result?.tokens).toEqual({ input: 16, output: 10, cacheRead: 4, cacheWrite: null });
    expect(dialectOf(codex).tokensPerSession).toBe(true);
    const failed = readAll(dialectOf(codex).reader(), [
      { type: 'turn.started' },
      { type: 'turn.failed', error: { message: 'stream error: 529 overloaded' } },
    ]);
    expect(failed.result).toMatchObject({ isError: true, text: 'stream error: 529 overloaded' });
    const offline = readAll(dialectOf(codex).reader(), [
      { type: 'error', message: 'Reconnecting... 2/5 (stream disconnected)' },
    ]);
    expect(offline.stalled).toBeNull();
    offline.read(
      JSON.stringify({
        type: 'error',
        message: 'Reconnecting... waiting for network (Connection failed: error sending request)',
      }),
    );
    expect(offline.stalled).toMatch(/waiting for network/);
  });
});

describe('Gemini CLI', () => {
  const gem = agent({ cli: 'gemini' });
  it('starts `gemini -p … -o stream-json --skip-trust --session-id`, and resumes with --resume (never both)', () => {
    const argv = argvOf({ bin: 'gemini', agent: gem });
    expect(argv.slice(0, 2)).toEqual(['gemini', '-p']);
    expect(argv[2]).toMatch(/^Be careful\.[\s\S]*\n---\n\nfix the bug$/);
    expect(argv.slice(3)).toEqual([
      '--output-format',
      'stream-json',
      '--skip-trust',
      '--session-id',
      'sess-1',
      '--include-directories',
      '/repo/.shop/signals',
    ]);
    const again = argvOf({
      bin: 'gemini',
      agent: agent({ cli: 'gemini', permissionMode: 'bypassPermissions' }),
      resume: true,
      prompt: 'go on',
    });
    expect(again.slice(0, 3)).toEqual(['gemini', '-p', 'go on']);
    expect(again).toContain('--resume');
    expect(again).not.toContain('--session-id');
    expect(again).toContain('--yolo');
    expect(dialectOf(gem).handOff('sess-1')).toEqual(['--resume', 'sess-1']);
    expect(
      dialectOf(gem).retry!({
        resume: true,
        exitCode: 42,
        stderr: 'Error resuming session: No previous sessions found for this project.',
      }),
    ).toEqual({ resume: false });
  });

  it('reads its session, tool use and streamed answer; an error result is an error', () => {
    const r = readAll(dialectOf(gem).reader(), [
      { type: 'init', timestamp: 't', session_id: 'sess-1', model: 'gemini-2.5-pro' },
      { type: 'message', role: 'user', content: 'fix the bug' },
      { type: 'tool_use', tool_name: 'run_shell_command', tool_id: 't1', parameters: { command: 'npm test' } },
      { type: 'tool_result', tool_id: 't1', status: 'success', output: 'ok' },
      { type: 'message', role: 'assistant', content: 'Fixed it. ', delta: true },
      { type: 'message', role: 'assistant', content: '<promise>DONE: fixed</promise>', delta: true },
      {
        type: 'result',
        status: 'success',
        stats: {
          total_tokens: 130,
          input_tokens: 100,
          output_tokens: 30,
          cached: 60,
          input: 40,
          duration_ms: 1200,
          tool_calls: 1,
        },
      },
    ]);
    // This process's tokens: input_tokens counts the cached part, `input` the rest.
    expect(r.result?.tokens).toEqual({ input: 40, output: 30, cacheRead: 60, cacheWrite: null });
    expect(dialectOf(gem).tokensPerSession).toBeFalsy();
    expect(r.sessionId).toBe('sess-1');
    expect(r.result).toMatchObject({
      isError: false,
      text: 'Fixed it. <promise>DONE: fixed</promise>',
      durationMs: 1200,
      costUsd: null,
    });
    const failed = readAll(dialectOf(gem).reader(), [
      { type: 'result', status: 'error', error: { type: 'api', message: 'Resource exhausted (429)' } },
    ]);
    expect(failed.result).toMatchObject({ isError: true, text: 'Resource exhausted (429)' });
    expect(failed.result?.tokens).toBeUndefined();
    // An older Gemini CLI without `input`: the fresh part is input_tokens less the cached.
    const older = readAll(dialectOf(gem).reader(), [
      { type: 'result', status: 'success', stats: { input_tokens: 100, output_tokens: 30, cached: 60 } },
    ]);
    expect(older.result?.tokens).toEqual({ input: 40, output: 30, cacheRead: 60, cacheWrite: null });
  });
});

describe("an invocation's own tokens from its session's running total", () => {
  const t = (input: number | null, output: number | null, cacheRead: number | null = null) => ({
    input,
    output,
    cacheRead,
    cacheWrite: null,
  });
  it('takes off what the call recorded before, kind by kind', () => {
    expect(sinceBefore(t(1600, 300, 800), t(800, 150, 400))).toEqual(t(800, 150, 400));
    expect(sinceBefore(t(1600, 300, null), t(800, null, 400))).toEqual(t(800, 300, null));
  });
  it('keeps a total below what came before whole: a session begun anew', () => {
    expect(sinceBefore(t(500, 50), t(800, 150))).toEqual(t(500, 50));
  });
});

describe('binaries', () => {
  it('SHOP_<CLI>_BIN names each CLI, else its own name', () => {
    expect(cliBin('codex', { SHOP_CODEX_BIN: '/opt/codex' })).toBe('/opt/codex');
    expect(cliBin('gemini', {})).toBe('gemini');
    expect(cliBin('claude', { SHOP_CLAUDE_BIN: ' ' })).toBe('claude');
  });
});

describe("Shop's MCP server, as each CLI is told of it", () => {
  const mcp = {
    command: '/usr/bin/node',
    args: ['/opt/shop/bin/shop', 'mcp'],
    file: '/repo/.shop/runs/1/1.coder.1.mcp.json',
    env: { SHOP_SIGNAL_FILE: '/repo/.shop/signals/1.1.coder.abc.json', SHOP_RUN_ID: '1', SHOP_CALL: '1' },
  };
  it('Claude Code: --mcp-config names the private file (the signal path off the command line), its tools allowed', () => {
    const argv = argvOf({ mcp, agent: agent({ allowedTools: ['Read'] }) });
    expect(argv.slice(argv.indexOf('--mcp-config'), argv.indexOf('--mcp-config') + 2)).toEqual([
      '--mcp-config',
      mcp.file,
    ]);
    const tools = argv.indexOf('--allowed-tools');
    expect(argv.slice(tools + 1, tools + 4)).toEqual(['Read', 'mcp__shop__report', 'mcp__shop__ask']);
    expect(argv.join(' ')).not.toContain(mcp.env.SHOP_SIGNAL_FILE);
    const file = JSON.parse(dialectOf(agent()).mcpConfig!(mcp).text);
    expect(file).toEqual({
      mcpServers: { shop: { type: 'stdio', command: mcp.command, args: mcp.args, env: mcp.env } },
    });
  });

  it('Codex: -c mcp_servers.shop.* before the prompt (and before resume), the step variables named, never given', () => {
    const codex = agent({ cli: 'codex' });
    const argv = argvOf({ bin: 'codex', agent: codex, mcp, resume: true, sessionId: 'th-1' });
    const configs = argv.flatMap((a, i) => (argv[i - 1] === '-c' ? [a] : []));
    expect(configs).toEqual([
      'mcp_servers.shop.command="/usr/bin/node"',
      'mcp_servers.shop.args=["/opt/shop/bin/shop","mcp"]',
      'mcp_servers.shop.env_vars=["SHOP_SIGNAL_FILE","SHOP_RUN_ID","SHOP_CALL","SHOP_AGENT","SHOP_HOME"]',
      'mcp_servers.shop.enabled_tools=["report","ask"]',
      'mcp_servers.shop.default_tools_approval_mode="approve"',
    ]);
    expect(argv.lastIndexOf('-c')).toBeLessThan(argv.indexOf('resume'));
    expect(argv.join(' ')).not.toContain(mcp.env.SHOP_SIGNAL_FILE);
  });

  it('Gemini CLI: its system defaults file holds the server, trusted, with exactly its tools; no --yolo', () => {
    const gem = agent({ cli: 'gemini' });
    expect(argvOf({ bin: 'gemini', agent: gem, mcp })).not.toContain('--yolo');
    const config = dialectOf(gem).mcpConfig!(mcp);
    expect(config.env).toEqual({ GEMINI_CLI_SYSTEM_DEFAULTS_PATH: mcp.file });
    expect(JSON.parse(config.text)).toEqual({
      mcpServers: {
        shop: { command: mcp.command, args: mcp.args, env: mcp.env, trust: true, includeTools: ['report', 'ask'] },
      },
    });
  });
});
