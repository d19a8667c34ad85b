#!/usr/bin/env node
// A stand-in for OpenAI's `codex` CLI (0.169.0), for tests and the demo (point SHOP_CODEX_BIN here).
// It parses Codex's real command line the way clap does, acts out the same scenarios as the Claude
// stand-in (scripts/standin-scenario.mjs; the step format is documented in claude-standin.mjs),
// reports through SHOP_SIGNAL_FILE like a real agent would, and prints `codex exec --json` events.
//
//   codex exec [OPTIONS] [PROMPT]                     a new thread (headless)
//   codex exec [OPTIONS] resume [RESUME OPTIONS] <SESSION_ID>|--last [PROMPT]   a new turn on a thread
//   codex [-c …] resume [OPTIONS] <SESSION_ID> [PROMPT]                         interactive, in a terminal
//   codex login status     "Not logged in" (exit 1) when the agent's steps (SHOP_AGENT; without it, any
//                          step of the scenario) include fail "auth"; else "Logged in using ChatGPT"
//   codex --version        codex-cli 0.0.0 (Shop stand-in)
//
// exec OPTIONS: --json, -m/--model M, -C/--cd DIR, -s/--sandbox read-only|workspace-write|danger-full-access,
//   --skip-git-repo-check, -c/--config key=value (repeatable; developer_instructions is logged as the
//   system prompt), -o/--output-last-message FILE, --dangerously-bypass-approvals-and-sandbox,
//   --add-dir DIR (repeatable), --ephemeral (no rollout is kept: the thread cannot be resumed),
//   and the other real ones (-p/--profile, -i/--image, --output-schema, --color, --oss, --trust,
//   --ignore-user-config, --ignore-rules, --dangerously-bypass-hook-trust, --approve-for-me).
// RESUME OPTIONS are only a subset: -c -m -i -o --json --skip-git-repo-check --ephemeral --output-schema
//   --dangerously-bypass-*, --last, --all. -s, -C, --add-dir and -p must come before `resume`.
// Like clap, an option it does not know (also -a/--ask-for-approval and --full-auto on exec, and
//   -s/-C/--add-dir after resume) fails with "error: unexpected argument '<x>' found", exit 2.
//
// Like Codex:
// - Its stdin is read to the end whenever it is not a terminal ("Reading additional input from
//   stdin..." on stderr; appended to the prompt as a <stdin> block): give it /dev/null.
// - Outside a git repository (a .git in the cwd or above) and without --skip-git-repo-check it exits 1
//   at once: "Not inside a trusted directory and --skip-git-repo-check was not specified."
// - Threads are kept under $CODEX_HOME (default ~/.codex) as sessions/YYYY/MM/DD/rollout-<ts>-<id>.jsonl,
//   first line a session_meta ({id, cwd}); a resume appends to it. A thread with no rollout there
//   fails: "Error: thread/resume: thread/resume failed: no rollout found for thread id <id> (code -32600)",
//   exit 1. With CODEX_HOME under /tmp each call warns on stderr (PATH aliases), as Codex does.
// - It chooses the thread id (a UUIDv7). stdout, one JSON line each: {"type":"thread.started","thread_id"},
//   {"type":"turn.started"}, then per stream event item.started/item.completed: { text } → agent_message,
//   { thought } → reasoning, { tool: Edit|Write|MultiEdit, input: { file_path } } → file_change {changes:
//   [{path, kind}], status}, another { tool, input } → command_execution {command (input.command, else
//   the tool (Read as cat) and its input's values), aggregated_output (input.output), exit_code
//   (input.exit_code, 0), status};
//   the default stream is a reasoning item, a Read and an Edit. Then the final agent_message and
//   {"type":"turn.completed","usage":{input_tokens, cached_input_tokens, cache_write_input_tokens,
//   output_tokens, reasoning_output_tokens}} — the thread's total so far (the step's `usage`, default
//   1200/400/0/150/0, times its turns), never a cost. is_error: {"type":"turn.failed"} with the text, exit 1.
//   Without --json only the final message is printed. -o writes it to FILE.
// - fail 529/429/500: {"type":"error","message"} then {"type":"turn.failed","error":{"message"}}, exit 1,
//   with Codex's texts ("Selected model is at capacity. …", "exceeded retry limit, last status: 429 Too
//   Many Requests, …", "We're currently experiencing high demand, …"; fail_text overrides).
//   fail "network" and fail "auth" (an unauthenticated Codex never says so): "Reconnecting... 2/5 …" to
//   5/5 error events, a fallback error item, then "Reconnecting... waiting for network (…)" every
//   pace_ms (default 500) until it is killed. None of them reports.
//
// Every invocation logs one line to SHOP_STANDIN_LOG with "cli":"codex" and Claude's fields (mode, agent,
// call, run, session_id = the thread id, resumed, remembered, transcript = the rollout, prompt, model,
// permission_mode = the sandbox, system_prompt, signal_file, cwd, step) plus argv, config, add_dirs,
// skip_git_repo_check, bypass, ephemeral, json.
import { existsSync, mkdirSync, readdirSync, readFileSync, appendFileSync, writeFileSync, statSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import {
  agentName,
  env,
  paceOf,
  readScenario,
  signalFile,
  sleep,
  standin,
  streamOf,
  useMcp,
} from './standin-scenario.mjs';

const USAGE = {
  exec: 'codex exec [OPTIONS] [PROMPT]',
  resume: 'codex exec resume [OPTIONS] [SESSION_ID] [PROMPT]',
  tui: 'codex [OPTIONS] [PROMPT] [COMMAND]',
};
const COMMON_VALUES = {
  '-c': 'config',
  '--config': 'config',
  '-m': 'model',
  '--model': 'model',
  '-i': 'image',
  '--image': 'image',
};
const SPECS = {
  exec: {
    values: {
      ...COMMON_VALUES,
      '-C': 'cd',
      '--cd': 'cd',
      '-s': 'sandbox',
      '--sandbox': 'sandbox',
      '-o': 'output',
      '--output-last-message': 'output',
      '--add-dir': 'add_dir',
      '-p': 'profile',
      '--profile': 'profile',
      '--output-schema': 'output_schema',
      '--color': 'color',
      '--local-provider': 'local_provider',
    },
    flags: [
      '--json',
      '--skip-git-repo-check',
      '--dangerously-bypass-approvals-and-sandbox',
      '--dangerously-bypass-hook-trust',
      '--ephemeral',
      '--ignore-user-config',
      '--ignore-rules',
      '--oss',
      '--trust',
      '--approve-for-me',
    ],
  },
  resume: {
    values: { ...COMMON_VALUES, '-o': 'output', '--output-last-message': 'output', '--output-schema': 'output_schema' },
    flags: [
      '--json',
      '--skip-git-repo-check',
      '--dangerously-bypass-approvals-and-sandbox',
      '--dangerously-bypass-hook-trust',
      '--ephemeral',
      '--last',
      '--all',
      '--ignore-user-config',
      '--ignore-rules',
    ],
  },
  tui: {
    values: {
      ...COMMON_VALUES,
      '-C': 'cd',
      '--cd': 'cd',
      '-s': 'sandbox',
      '--sandbox': 'sandbox',
      '-a': 'approval',
      '--ask-for-approval': 'approval',
      '--add-dir': 'add_dir',
      '-p': 'profile',
      '--profile': 'profile',
    },
    flags: [
      '--dangerously-bypass-approvals-and-sandbox',
      '--full-auto',
      '--search',
      '--oss',
      '--no-alt-screen',
      '--last',
      '--all',
    ],
  },
};
const REPEATED = new Set(['config', 'add_dir', 'image']);
const SANDBOXES = ['read-only', 'workspace-write', 'danger-full-access'];

function clapError(arg, usage) {
  process.stderr.write(
    `error: unexpected argument '${arg}' found\n\nUsage: ${usage}\n\nFor more information, try '--help'.\n`,
  );
  process.exit(2);
}

/** Reads options into `a` until a positional that `onPositional` does not take (returned: its index). */
function parseOptions(argv, i, spec, usage, a, onPositional) {
  let rest = false;
  for (; i < argv.length; i++) {
    const arg = argv[i];
    if (!rest && arg === '--') {
      rest = true;
      continue;
    }
    if (!rest && arg.startsWith('-') && arg !== '-') {
      if (arg === '--version' || arg === '-V') {
        console.log('codex-cli 0.0.0 (Shop stand-in)');
        process.exit(0);
      }
      if (arg === '-h' || arg === '--help') {
        console.log(`Usage: ${usage}`);
        process.exit(0);
      }
      const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
      const name = eq > 0 ? arg.slice(0, eq) : arg;
      if (spec.flags.includes(name) && eq < 0) {
        a[name.replace(/^-+/, '')] = true;
        continue;
      }
      const key = spec.values[name];
      if (!key) clapError(arg, usage);
      const value = eq > 0 ? arg.slice(eq + 1) : argv[++i];
      if (value === undefined) {
        process.stderr.write(
          `error: a value is required for '${name} <${key.toUpperCase()}>' but none was supplied\n\nFor more information, try '--help'.\n`,
        );
        process.exit(2);
      }
      if (key === 'sandbox' && !SANDBOXES.includes(value)) {
        process.stderr.write(
          `error: invalid value '${value}' for '--sandbox <SANDBOX_MODE>'\n  [possible values: ${SANDBOXES.join(', ')}]\n\nFor more information, try '--help'.\n`,
        );
        process.exit(2);
      }
      if (REPEATED.has(key)) (a[key] ??= []).push(value);
      else a[key] = value;
      continue;
    }
    if (!onPositional(arg, i)) return i;
  }
  return i;
}

/** The command line: { command: 'exec' | 'resume' (interactive) | 'login' | …, options, session, prompt }. */
function parseCommandLine(argv) {
  const a = { config: [], add_dir: [], image: [] };
  let i = parseOptions(argv, 0, SPECS.tui, USAGE.tui, a, () => false);
  const command = argv[i];
  if (command === 'exec' || command === 'e') {
    a.command = 'exec';
    const positionals = [];
    i = parseOptions(argv, i + 1, SPECS.exec, USAGE.exec, a, (arg) => {
      if (arg === 'resume' && positionals.length === 0) return false;
      if (positionals.length >= 1) clapError(arg, USAGE.exec);
      positionals.push(arg);
      return true;
    });
    a.prompt = positionals[0];
    if (argv[i] === 'resume') {
      a.resume = true;
      const rp = [];
      parseOptions(argv, i + 1, SPECS.resume, USAGE.resume, a, (arg) => {
        if (rp.length >= (a.last ? 1 : 2)) clapError(arg, USAGE.resume);
        rp.push(arg);
        return true;
      });
      if (a.last) a.prompt = rp[0];
      else [a.session, a.prompt] = rp;
    }
  } else if (command === 'resume') {
    a.command = 'resume';
    const rp = [];
    parseOptions(argv, i + 1, SPECS.tui, 'codex resume [OPTIONS] [SESSION_ID] [PROMPT]', a, (arg) => {
      if (rp.length >= (a.last ? 1 : 2)) clapError(arg, 'codex resume [OPTIONS] [SESSION_ID] [PROMPT]');
      rp.push(arg);
      return true;
    });
    if (a.last) a.prompt = rp[0];
    else [a.session, a.prompt] = rp;
  } else if (command === 'login') {
    a.command = argv[i + 1] === 'status' ? 'login-status' : 'login';
  } else {
    a.command = command ?? 'tui';
  }
  return a;
}

const args = parseCommandLine(process.argv.slice(2));
readMcpConfig();
const codexHome = env.CODEX_HOME || join(env.HOME || homedir(), '.codex');

if (args.command === 'login-status') {
  const scenario = readScenario();
  const steps = env.SHOP_AGENT
    ? [...(scenario?.agents?.[env.SHOP_AGENT] ?? []), scenario?.default]
    : [...Object.values(scenario?.agents ?? {}).flat(), scenario?.default];
  const out = steps.some((s) => s?.fail === 'auth');
  console.log(out ? 'Not logged in' : 'Logged in using ChatGPT');
  process.exit(out ? 1 : 0);
}
if (args.command !== 'exec' && args.command !== 'resume') {
  console.error(
    `error: the Codex stand-in plays only exec, exec resume, resume, login status and --version (not '${args.command}')`,
  );
  process.exit(2);
}
if (args.cd) {
  try {
    process.chdir(args.cd);
  } catch {
    console.error(`Error: No such file or directory (os error 2)`);
    process.exit(1);
  }
}
if (resolve(codexHome).startsWith(resolve(tmpdir()) + '/') || resolve(codexHome).startsWith('/tmp/')) {
  process.stderr.write(
    `WARNING: proceeding, even though we could not create PATH aliases: Refusing to create helper binaries under temporary dir "/tmp" (codex_home: AbsolutePathBuf("${resolve(codexHome)}"))\n`,
  );
}

/** Every rollout file under $CODEX_HOME/sessions, newest last. */
function rollouts() {
  const root = join(codexHome, 'sessions');
  const out = [];
  const walk = (dir) => {
    for (const e of existsSync(dir) ? readdirSync(dir, { withFileTypes: true }) : []) {
      if (e.isDirectory()) walk(join(dir, e.name));
      else if (/^rollout-.*\.jsonl$/.test(e.name)) out.push(join(dir, e.name));
    }
  };
  walk(root);
  return out.sort((x, y) => statSync(x).mtimeMs - statSync(y).mtimeMs);
}

const metaOf = (file) => JSON.parse(readFileSync(file, 'utf8').split('\n')[0]).payload;

function findRollout() {
  const all = rollouts();
  if (args.last) return all.filter((f) => args.all || metaOf(f).cwd === process.cwd()).pop() ?? null;
  return all.find((f) => f.endsWith(`-${args.session}.jsonl`)) ?? null;
}

/** A UUIDv7: 48 bits of milliseconds, then random bits. */
function uuidv7() {
  const hex =
    Date.now().toString(16).padStart(12, '0') +
    [...crypto.getRandomValues(new Uint8Array(10))].map((b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7${hex.slice(13, 16)}-${((parseInt(hex[16], 16) & 3) | 8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

function newRollout(id) {
  const d = new Date();
  const p = (n) => String(n).padStart(2, '0');
  const day = [String(d.getFullYear()), p(d.getMonth() + 1), p(d.getDate())];
  const file = join(
    codexHome,
    'sessions',
    ...day,
    `rollout-${day.join('-')}T${p(d.getHours())}-${p(d.getMinutes())}-${p(d.getSeconds())}-${id}.jsonl`,
  );
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(
    file,
    JSON.stringify({
      timestamp: d.toISOString(),
      type: 'session_meta',
      payload: {
        session_id: id,
        id,
        timestamp: d.toISOString(),
        cwd: process.cwd(),
        originator: 'codex_exec',
        cli_version: '0.0.0',
      },
    }) + '\n',
    { mode: 0o600 },
  );
  return file;
}

// Which thread: a resumed one must have its rollout here.
let rollout = null;
if (args.resume || args.command === 'resume') {
  rollout = findRollout();
  if (!rollout) {
    const id = args.session ?? '(latest)';
    process.stderr.write(
      `Error: thread/resume: thread/resume failed: no rollout found for thread id ${id} (code -32600)\n\nStack backtrace:\n   0: <unknown>\n`,
    );
    process.exit(1);
  }
}
const threadId = rollout ? metaOf(rollout).id : uuidv7();
const interactive = args.command === 'resume';
const { startSpans, log, actOut, chatLoop, pickStep } = standin({ cli: 'codex', session: () => threadId, interactive });

/** The rollout's messages so far. */
const messages = () =>
  rollout
    ? readFileSync(rollout, 'utf8')
        .split('\n')
        .filter((l) => l.includes('"response_item"')).length
    : 0;
function remember(role, text) {
  if (!rollout) return;
  appendFileSync(
    rollout,
    JSON.stringify({
      timestamp: new Date().toISOString(),
      type: 'response_item',
      payload: {
        type: 'message',
        role,
        content: [{ type: role === 'user' ? 'input_text' : 'output_text', text: String(text ?? '') }],
      },
    }) + '\n',
  );
}
/** The value of -c developer_instructions=…, TOML strings unquoted. */
function configValue(key) {
  const raw = args.config
    .filter((c) => c.startsWith(`${key}=`))
    .pop()
    ?.slice(key.length + 1);
  if (raw === undefined) return null;
  try {
    return /^["']/.test(raw) ? JSON.parse(raw.replace(/^'(.*)'$/s, (_, s) => JSON.stringify(s))) : raw;
  } catch {
    return raw;
  }
}

/**
 * Shop's MCP server from `-c mcp_servers.shop.*` (command, args, env_vars, enabled_tools,
 * default_tools_approval_mode): Codex hands its servers a few variables of its own and those
 * env_vars names; `codex exec` cannot ask for an approval, so a tool runs only when approved up
 * front (approve) or with the sandbox bypassed.
 */
function readMcpConfig() {
  const command = configValue('mcp_servers.shop.command');
  if (!command) return;
  const list = (key) => {
    const v = configValue(`mcp_servers.shop.${key}`);
    return v === null ? null : Array.isArray(v) ? v : JSON.parse(v);
  };
  const enabled = list('enabled_tools');
  const approval = configValue('mcp_servers.shop.default_tools_approval_mode');
  useMcp({
    server: { command, args: list('args') ?? [], env: {} },
    inherit: ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'USER', 'LANG', 'TERM', 'TMPDIR', 'TZ', ...(list('env_vars') ?? [])],
    allowed: (tool) =>
      enabled && !enabled.includes(tool)
        ? `unknown MCP tool: shop/${tool}`
        : approval === 'approve' || args['dangerously-bypass-approvals-and-sandbox']
          ? null
          : `MCP tool call shop/${tool} needs approval, which codex exec cannot ask for`,
  });
}

function logInvocation(mode, prompt, remembered, step) {
  log({
    mode,
    agent: env.SHOP_AGENT,
    call: env.SHOP_CALL,
    run: env.SHOP_RUN_ID,
    session_id: threadId,
    resumed: Boolean(args.resume || interactive),
    remembered,
    transcript: rollout,
    prompt,
    model: args.model ?? null,
    permission_mode: args.sandbox ?? null,
    max_budget_usd: null,
    allowed_tools: [],
    system_prompt: configValue('developer_instructions'),
    signal_file: signalFile ?? null,
    cwd: process.cwd(),
    step,
    argv: process.argv.slice(2),
    config: args.config,
    add_dirs: args.add_dir,
    skip_git_repo_check: Boolean(args['skip-git-repo-check']),
    bypass: Boolean(args['dangerously-bypass-approvals-and-sandbox']),
    ephemeral: Boolean(args.ephemeral),
    json: Boolean(args.json),
  });
}

async function readPrompt() {
  let prompt = args.prompt === '-' ? undefined : args.prompt;
  if (!process.stdin.isTTY) {
    process.stderr.write('Reading additional input from stdin...\n');
    let input = '';
    for await (const chunk of process.stdin) input += chunk;
    if (prompt === undefined) prompt = input.trim() ? input : undefined;
    else if (input.trim()) prompt = `${prompt}\n\n<stdin>\n${input}\n</stdin>`;
  }
  if (prompt === undefined) {
    console.error(
      process.stdin.isTTY
        ? 'No prompt provided. Either specify one as an argument or pipe the prompt into stdin.'
        : 'No prompt provided via stdin.',
    );
    process.exit(1);
  }
  return prompt;
}

function insideGit(dir) {
  for (let d = dir; ; d = dirname(d)) {
    if (existsSync(join(d, '.git'))) return true;
    if (dirname(d) === d) return false;
  }
}

const emit = (event) => args.json && process.stdout.write(JSON.stringify(event) + '\n');
let items = 0;
const item = (phase, body) => emit({ type: `item.${phase}`, item: { id: `item_${items}`, ...body } });

const FAILURES = {
  529: 'Selected model is at capacity. Please try a different model.',
  429: 'exceeded retry limit, last status: 429 Too Many Requests, request id: req_standin',
  500: "We're currently experiencing high demand, which may cause temporary errors.",
};

async function fail(step) {
  if (step.sleep_ms) await sleep(step.sleep_ms);
  if (step.fail === 'network' || step.fail === 'auth') {
    // An unauthenticated Codex never says so either: it cannot reach the service, and keeps trying.
    for (let n = 2; n <= 5; n++) {
      emit({
        type: 'error',
        message: `Reconnecting... ${n}/5 (stream disconnected before completion: failed to lookup address information: Name does not resolve)`,
      });
    }
    process.stderr.write(
      `${new Date().toISOString()} ERROR codex_api::endpoint::responses_websocket: failed to connect to Responses WebSocket stage=Unknown\n`,
    );
    item('completed', {
      type: 'error',
      message:
        'Falling back from WebSockets to HTTPS transport. stream disconnected before completion: failed to lookup address information: Name does not resolve',
    });
    for (;;) {
      emit({
        type: 'error',
        message: 'Reconnecting... waiting for network (Connection failed: error sending request)',
      });
      await sleep(paceOf(step) || 500);
    }
  }
  const message = step.fail_text ?? FAILURES[step.fail] ?? FAILURES[529];
  emit({ type: 'error', message });
  emit({ type: 'turn.failed', error: { message } });
  if (!args.json) process.stderr.write(`ERROR: ${message}\n`);
  process.exit(step.exit ?? 1);
}

const EDITS = new Set(['Edit', 'Write', 'MultiEdit']);

async function stream(step, prompt) {
  const events = step.stream ?? streamOf(step, prompt).map((e, i) => (i === 0 && e.text ? { thought: e.text } : e));
  const pace = paceOf(step);
  for (const e of events) {
    if (EDITS.has(e.tool) && e.input?.file_path) {
      const changes = [{ path: e.input.file_path, kind: e.tool === 'Write' ? 'add' : 'update' }];
      item('started', { type: 'file_change', changes, status: 'in_progress' });
      item('completed', { type: 'file_change', changes, status: 'completed' });
    } else if (e.tool) {
      const input = e.input ?? {};
      const command =
        input.command ??
        `/bin/bash -lc '${[e.tool === 'Read' ? 'cat' : e.tool, ...Object.values(input).filter((v) => typeof v !== 'object')].join(' ')}'`;
      const exitCode = input.exit_code ?? 0;
      item('started', {
        type: 'command_execution',
        command,
        aggregated_output: '',
        exit_code: null,
        status: 'in_progress',
      });
      item('completed', {
        type: 'command_execution',
        command,
        aggregated_output: input.output ?? '',
        exit_code: exitCode,
        status: exitCode === 0 ? 'completed' : 'failed',
      });
    } else if (e.thought !== undefined) {
      item('completed', { type: 'reasoning', text: e.thought });
    } else {
      item('completed', { type: 'agent_message', text: e.text });
    }
    items++;
    if (pace) await sleep(pace);
  }
}

async function headless() {
  const prompt = await readPrompt();
  if (!args['skip-git-repo-check'] && !insideGit(process.cwd())) {
    console.error('Not inside a trusted directory and --skip-git-repo-check was not specified.');
    process.exit(1);
  }
  await startSpans();
  const remembered = messages();
  const step = pickStep(prompt);
  if (!rollout && !args.ephemeral) rollout = newRollout(threadId);
  logInvocation('print', prompt, remembered, step);
  remember('user', prompt);
  emit({ type: 'thread.started', thread_id: threadId });
  emit({ type: 'turn.started' });
  if (step.fail !== undefined) return fail(step);
  await stream(step, prompt);
  const text = await actOut(step);
  remember('assistant', text);
  item('completed', { type: 'agent_message', text });
  if (args.output) writeFileSync(args.output, text);
  if (!args.json) process.stdout.write(text + '\n');
  if (step.is_error) {
    emit({ type: 'turn.failed', error: { message: text } });
    process.exit(step.exit ?? 1);
  }
  const turns = Math.max(1, Math.ceil(messages() / 2));
  const base = {
    input_tokens: 1200,
    cached_input_tokens: 400,
    cache_write_input_tokens: 0,
    output_tokens: 150,
    reasoning_output_tokens: 0,
    ...(step.usage ?? {}),
  };
  emit({ type: 'turn.completed', usage: Object.fromEntries(Object.entries(base).map(([k, v]) => [k, v * turns])) });
  process.exit(step.exit ?? 0);
}

async function chat() {
  // `codex resume <id>` in a terminal: the person talks to the agent.
  await startSpans();
  const step = pickStep(args.prompt);
  logInvocation('interactive', args.prompt ?? null, messages(), undefined);
  console.log(`OpenAI Codex (stand-in) — resumed thread ${threadId} (agent ${agentName()})`);
  if (args.prompt) console.log(`You: ${args.prompt}`);
  console.log('Type your reply to the agent, or /exit to leave.');
  await chatLoop({ step, leave: ['/exit', '/quit'], remember: (line) => remember('user', line) });
}

await (interactive ? chat() : headless());
