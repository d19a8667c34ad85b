#!/usr/bin/env node
// A stand-in for Google's `gemini` CLI (0.61.0), for tests and the demo (point SHOP_GEMINI_BIN here).
// It parses Gemini CLI's real flags the way yargs does, acts out the same scenarios as the Claude
// stand-in (scripts/standin-scenario.mjs; the step format is documented in claude-standin.mjs),
// reports through SHOP_SIGNAL_FILE like a real agent would, and prints `--output-format stream-json`.
//
//   gemini -p <prompt> -o stream-json [--session-id <uuid> | -r/--resume <uuid|latest|n>] …   headless
//   gemini --resume <id> [-i <first message>]       interactive, in a terminal (also --session-id <id>)
//   gemini --version                                0.0.0
//
// Flags: -p/--prompt, -o/--output-format text|json|stream-json, -m/--model, --session-id <uuid> (a NEW
//   session with that id), -r/--resume, --skip-trust, -y/--yolo, --approval-mode default|auto_edit|yolo|plan
//   (not with --yolo), --include-directories (comma-separated or repeated), -i/--prompt-interactive, and the
//   other real ones (-s/--sandbox, -d/--debug, --session-file, --policy, -e/--extensions, --allowed-tools,
//   --allowed-mcp-server-names, --raw-output, --accept-raw-output-risk, --screen-reader); --x=value works.
//   A positional argument is a prompt too (headless).
// Like Gemini CLI:
// - An unknown flag: "Unknown argument: <name>" (yargs: the name without its dashes), exit 1; --resume
//   with --session-id or --session-file: "The flags --resume, --session-id, and --session-file are
//   mutually exclusive. Please provide only one.", exit 1.
// - Then auth: a step with fail "auth" (the stand-in reads no key: the scenario decides) exits 41 with
//   "Please set an Auth method in your <home>/.gemini/settings.json or specify one of the following
//   environment variables before running: GEMINI_API_KEY, GOOGLE_GENAI_USE_VERTEXAI, GOOGLE_GENAI_USE_GCA".
// - Then trust (headless only): unless --skip-trust, GEMINI_CLI_TRUST_WORKSPACE=true, or the folder (or a
//   parent) is in <home>/.gemini/trustedFolders.json as TRUST_FOLDER/TRUST_PARENT, it exits 55 with
//   "Gemini CLI is not running in a trusted directory. To proceed, …" on stderr.
// - Its stdin, when not a terminal, is read (until it ends, or 500 ms without data) and put before the prompt.
// - Sessions are kept under <home> = $GEMINI_CLI_HOME, else ~: .gemini/tmp/<project short name>/chats/
//   session-<YYYY-MM-DDTHH-MM>-<first 8 of id>.jsonl (the short name from .gemini/projects.json, else
//   the cwd's base name, then recorded there); first line {sessionId, projectHash, startTime, lastUpdated,
//   kind:"main"}, then {"$set":{"messages":[…]}} records. A session is resumable only with a model
//   reply in it; --resume of one not there exits 42: "Error resuming session: No previous sessions found
//   for this project.". Without --session-id or --resume the session id is a new random UUID.
// - stream-json lines, each with a timestamp: {"type":"init","session_id","model"}, {"type":"message",
//   "role":"user","content"}, then per stream event: { text } → {"type":"message","role":"assistant",
//   "content","delta":true}; { tool, input } → {"type":"tool_use","tool_name","tool_id","parameters"} and
//   {"type":"tool_result","tool_id","status","output"} (Read → read_file, Edit → replace, Write →
//   write_file, Bash → run_shell_command; run_shell_command outside yolo mode fails as it does headless:
//   status "error", error {type:"tool_not_registered"}); { thought } prints nothing. Then the final
//   assistant message and {"type":"result","status":"success","stats":{total_tokens, input_tokens,
//   output_tokens, cached, input, duration_ms, tool_calls, models}} — no session_id, no cost.
//   is_error: a result with status "error", exit 1. -o json prints {"response","stats"}; -o text the text.
// - fail 529/429/500 (the API's 503 UNAVAILABLE / 429 RESOURCE_EXHAUSTED / 500 INTERNAL): "Attempt n failed
//   with status …. Retrying with backoff..." lines on stderr, then {"type":"result","status":"error","error":
//   {"type":"ApiError","message":"[API Error: …]"}}, exit 1 (the stand-in's choice: the real exit code after
//   an API error is not verified; take the result's status, not the code). fail "network": "Attempt n
//   failed. Retrying with backoff... Error: exception TypeError: fetch failed sending request" for attempts
//   1–9 (pace_ms apart, default 100), then an error result (type "Error"), exit 1. None of them reports.
//
// Every invocation logs one line to SHOP_STANDIN_LOG with "cli":"gemini" and Claude's fields (mode, agent,
// call, run, session_id, resumed, remembered, transcript = the session file, prompt, model,
// permission_mode = the approval mode, system_prompt (null), signal_file, cwd, step) plus argv,
// skip_trust, include_directories, output_format.
import { createHash, randomUUID } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { env, paceOf, pickStep, signalFile, sleep, standin, streamOf, useMcp } from './standin-scenario.mjs';

const VALUES = {
  '-p': 'prompt',
  '--prompt': 'prompt',
  '-o': 'output-format',
  '--output-format': 'output-format',
  '-m': 'model',
  '--model': 'model',
  '--session-id': 'session-id',
  '-r': 'resume',
  '--resume': 'resume',
  '--approval-mode': 'approval-mode',
  '--include-directories': 'include-directories',
  '-i': 'prompt-interactive',
  '--prompt-interactive': 'prompt-interactive',
  '--session-file': 'session-file',
  '--policy': 'policy',
  '-e': 'extensions',
  '--extensions': 'extensions',
  '--allowed-tools': 'allowed-tools',
  '--allowed-mcp-server-names': 'allowed-mcp-server-names',
};
const FLAGS = {
  '--skip-trust': 'skip-trust',
  '-y': 'yolo',
  '--yolo': 'yolo',
  '-s': 'sandbox',
  '--sandbox': 'sandbox',
  '-d': 'debug',
  '--debug': 'debug',
  '--raw-output': 'raw-output',
  '--accept-raw-output-risk': 'accept-raw-output-risk',
  '--screen-reader': 'screen-reader',
};
const CHOICES = {
  'output-format': ['text', 'json', 'stream-json'],
  'approval-mode': ['default', 'auto_edit', 'yolo', 'plan'],
};
const HELP =
  'Usage: gemini [options] [command]\n\nGemini CLI - Defaults to interactive mode. Use -p/--prompt for non-interactive (headless) mode.\n';

function usageError(message) {
  process.stderr.write(`${HELP}\n${message}\n`);
  process.exit(1);
}

function parseArgs(argv) {
  const a = { 'include-directories': [], positional: [] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--version' || arg === '-v') {
      console.log('0.0.0');
      process.exit(0);
    }
    if (arg === '-h' || arg === '--help') {
      console.log(HELP);
      process.exit(0);
    }
    if (!arg.startsWith('-') || arg === '-') {
      a.positional.push(arg);
      continue;
    }
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    if (FLAGS[name] && eq < 0) {
      a[FLAGS[name]] = true;
      continue;
    }
    const key = VALUES[name];
    if (!key) usageError(`Unknown argument: ${name.replace(/^-+/, '')}`);
    const value = eq > 0 ? arg.slice(eq + 1) : argv[++i];
    if (value === undefined) usageError(`Not enough arguments following: ${key}`);
    if (CHOICES[key] && !CHOICES[key].includes(value)) {
      usageError(
        `Invalid values:\n  Argument: ${key}, Given: "${value}", Choices: ${CHOICES[key].map((c) => `"${c}"`).join(', ')}`,
      );
    }
    if (key === 'include-directories')
      a[key].push(
        ...value
          .split(',')
          .map((d) => d.trim())
          .filter(Boolean),
      );
    else a[key] = value;
  }
  if (a.resume !== undefined && (a['session-id'] !== undefined || a['session-file'] !== undefined)) {
    process.stderr.write(
      `The flags --resume, --session-id, and --session-file are mutually exclusive. Please provide only one.\n\n${HELP}`,
    );
    process.exit(1);
  }
  if (a.yolo && a['approval-mode'])
    usageError('Cannot use both --yolo (-y) and --approval-mode together. Use --approval-mode=yolo instead.');
  if (a.prompt === undefined && a.positional.length && a['prompt-interactive'] === undefined)
    a.prompt = a.positional.join(' ');
  return a;
}

/**
 * Shop's MCP server from the settings Gemini CLI reads — only the system defaults file
 * (GEMINI_CLI_SYSTEM_DEFAULTS_PATH) here: mcpServers.shop { command, args, env, trust,
 * includeTools }. Its server gets this process's environment with env over it. Headless, a tool
 * that would need a confirmation is denied: an MCP tool runs with --yolo or from a trusted server
 * (never in plan mode), and only when includeTools (if given) names it.
 */
function readMcpConfig() {
  const file = env.GEMINI_CLI_SYSTEM_DEFAULTS_PATH;
  const server = file ? JSON.parse(readFileSync(file, 'utf8'))?.mcpServers?.shop : null;
  if (!server) return;
  useMcp({
    server,
    inherit: 'all',
    allowed: (tool) =>
      server.includeTools && !server.includeTools.includes(tool)
        ? `Tool "mcp_shop_${tool}" not found in registry.`
        : approval === 'yolo' || (server.trust && approval !== 'plan')
          ? null
          : `Tool execution for "mcp_shop_${tool}" requires user approval, which is not available in non-interactive mode`,
  });
}

const args = parseArgs(process.argv.slice(2));
const home = env.GEMINI_CLI_HOME || env.HOME || homedir();
const gemini = join(home, '.gemini');
const interactive = args.prompt === undefined;
const approval = args.yolo ? 'yolo' : (args['approval-mode'] ?? 'default');
const format = args['output-format'] ?? 'text';
readMcpConfig();
const model = args.model ?? 'gemini-2.5-pro';
const readJson = (file, fallback) => {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return fallback;
  }
};

/** The project's short name, as .gemini/projects.json records it (recorded on first use). */
function projectName() {
  const file = join(gemini, 'projects.json');
  const known = readJson(file, { projects: {} });
  known.projects ??= {};
  if (known.projects[process.cwd()]) return known.projects[process.cwd()];
  const base =
    basename(process.cwd())
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-') || 'root';
  const taken = new Set(Object.values(known.projects));
  let name = base;
  for (let n = 1; taken.has(name); n++) name = `${base}-${n}`;
  known.projects[process.cwd()] = name;
  mkdirSync(gemini, { recursive: true });
  writeFileSync(file, JSON.stringify(known, null, 2));
  return name;
}

const chats = () => join(gemini, 'tmp', projectName(), 'chats');
const lines = (file) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
const messagesOf = (file) =>
  lines(file)
    .filter((l) => l.$set?.messages)
    .pop()?.$set.messages ?? [];

/** The project's resumable sessions (with a model reply), oldest first. */
function sessions() {
  const dir = chats();
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => /^session-.*\.jsonl$/.test(f))
    .map((f) => join(dir, f))
    .filter((f) => messagesOf(f).some((m) => m.type === 'gemini'))
    .sort((x, y) => statSync(x).mtimeMs - statSync(y).mtimeMs);
}

function findSession(which) {
  const all = sessions();
  if (which === 'latest') return all.pop() ?? null;
  if (/^\d+$/.test(which)) return all[Number(which) - 1] ?? null;
  return all.find((f) => lines(f)[0]?.sessionId === which) ?? null;
}

function newSessionFile(id) {
  const now = new Date().toISOString();
  const file = join(chats(), `session-${now.slice(0, 16).replace(/:/g, '-')}-${id.slice(0, 8)}.jsonl`);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(
    file,
    JSON.stringify({
      sessionId: id,
      projectHash: createHash('sha256').update(process.cwd()).digest('hex'),
      startTime: now,
      lastUpdated: now,
      kind: 'main',
    }) + '\n',
  );
  return file;
}

let sessionFile = null;
if (args.resume !== undefined) {
  sessionFile = findSession(args.resume);
} else if (args['session-id'] !== undefined) {
  sessionFile = findSession(args['session-id']); // unverified what Gemini does with an id in use: the stand-in continues it
}
const sessionId = sessionFile ? lines(sessionFile)[0].sessionId : (args['session-id'] ?? randomUUID());
const { startSpans, log, actOut, chatLoop } = standin({ cli: 'gemini', session: () => sessionId, interactive });

function remember(type, content) {
  sessionFile ??= newSessionFile(sessionId);
  const messages = [
    ...messagesOf(sessionFile),
    { id: randomUUID(), timestamp: new Date().toISOString(), type, content: String(content ?? '') },
  ];
  appendFileSync(sessionFile, JSON.stringify({ $set: { messages, lastUpdated: new Date().toISOString() } }) + '\n');
}

function logInvocation(mode, prompt, step) {
  log({
    mode,
    agent: env.SHOP_AGENT,
    call: env.SHOP_CALL,
    run: env.SHOP_RUN_ID,
    session_id: sessionId,
    resumed: args.resume !== undefined,
    remembered: sessionFile ? messagesOf(sessionFile).length : 0,
    transcript: sessionFile,
    prompt,
    model: args.model ?? null,
    permission_mode: approval,
    max_budget_usd: null,
    allowed_tools: [],
    system_prompt: null,
    signal_file: signalFile ?? null,
    cwd: process.cwd(),
    step,
    argv: process.argv.slice(2),
    skip_trust: Boolean(args['skip-trust']),
    include_directories: args['include-directories'],
    output_format: format,
  });
}

async function readStdin() {
  if (process.stdin.isTTY) return '';
  let input = '';
  await new Promise((done) => {
    let timer = setTimeout(done, 500);
    process.stdin.on('data', (chunk) => {
      input += chunk;
      clearTimeout(timer);
      timer = setTimeout(done, 500);
    });
    process.stdin.on('end', () => {
      clearTimeout(timer);
      done();
    });
    process.stdin.on('error', () => {
      clearTimeout(timer);
      done();
    });
  });
  process.stdin.pause();
  process.stdin.destroy();
  return input;
}

function trusted() {
  if (args['skip-trust'] || env.GEMINI_CLI_TRUST_WORKSPACE === 'true') return true;
  const folders = readJson(join(gemini, 'trustedFolders.json'), {});
  return Object.entries(folders).some(
    ([dir, how]) =>
      (how === 'TRUST_FOLDER' || how === 'TRUST_PARENT') &&
      (process.cwd() === dir || process.cwd().startsWith(dir.endsWith('/') ? dir : `${dir}/`)),
  );
}

const started = Date.now();
const emit = (event) =>
  format === 'stream-json' &&
  process.stdout.write(JSON.stringify({ type: event.type, timestamp: new Date().toISOString(), ...event }) + '\n');
const stats = (toolCalls, step) => {
  const input = step.usage?.input_tokens ?? 1200;
  const output = step.usage?.output_tokens ?? 150;
  return {
    total_tokens: input + output,
    input_tokens: input,
    output_tokens: output,
    cached: 0,
    input,
    duration_ms: Date.now() - started,
    tool_calls: toolCalls,
    models: { [model]: { total_tokens: input + output, input_tokens: input, output_tokens: output, cached: 0, input } },
  };
};
const TOOLS = {
  Read: 'read_file',
  Edit: 'replace',
  Write: 'write_file',
  Bash: 'run_shell_command',
  Grep: 'grep_search',
  Glob: 'glob',
};
const API_FAILURES = {
  529: [
    503,
    '{"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}}',
  ],
  429: [
    429,
    '{"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED"}}',
  ],
  500: [
    500,
    '{"error":{"code":500,"message":"An internal error has occurred. Please retry or try reformatting your input.","status":"INTERNAL"}}',
  ],
};

function finish(status, text, step, toolCalls, error) {
  emit({ type: 'result', status, ...(error ? { error } : {}), stats: stats(toolCalls, step) });
  if (format === 'json')
    process.stdout.write(
      JSON.stringify({ response: text ?? '', stats: stats(toolCalls, step), ...(error ? { error } : {}) }) + '\n',
    );
  if (format === 'text' && text) process.stdout.write(text + '\n');
  if (error && format === 'text') process.stderr.write(`${error.message}\n`);
}

async function fail(step) {
  if (step.sleep_ms) await sleep(step.sleep_ms);
  const pace = paceOf(step) || 100;
  if (step.fail === 'network') {
    for (let n = 1; n <= 9; n++) {
      process.stderr.write(
        `Attempt ${n} failed. Retrying with backoff... Error: exception TypeError: fetch failed sending request\n`,
      );
      await sleep(pace);
    }
    finish('error', null, step, 0, {
      type: 'Error',
      message: step.fail_text ?? '[API Error: exception TypeError: fetch failed sending request]',
    });
    process.exit(step.exit ?? 1);
  }
  const [code, body] = API_FAILURES[step.fail] ?? API_FAILURES[529];
  for (let n = 1; n <= 2; n++) {
    process.stderr.write(`Attempt ${n} failed with status ${code}. Retrying with backoff... ApiError: ${body}\n`);
    await sleep(pace);
  }
  finish('error', null, step, 0, { type: 'ApiError', message: step.fail_text ?? `[API Error: ${body}]` });
  process.exit(step.exit ?? 1);
}

async function stream(step, prompt) {
  let calls = 0;
  for (const [i, e] of streamOf(step, prompt).entries()) {
    if (e.tool) {
      const name = TOOLS[e.tool] ?? e.tool;
      const id = `${name}__${name}_${Date.now()}_${i}`;
      const { output, ...parameters } = e.input ?? {};
      emit({ type: 'tool_use', tool_name: name, tool_id: id, parameters });
      if (name === 'run_shell_command' && approval !== 'yolo') {
        const message = `Tool "${name}" not found. Did you mean one of: "update_topic", "grep_search", "invoke_agent"?`;
        emit({
          type: 'tool_result',
          tool_id: id,
          status: 'error',
          output: message,
          error: { type: 'tool_not_registered', message },
        });
      } else {
        emit({ type: 'tool_result', tool_id: id, status: 'success', output: output ?? '' });
      }
      calls++;
    } else if (e.text !== undefined) {
      emit({ type: 'message', role: 'assistant', content: e.text, delta: true });
    }
    if (paceOf(step)) await sleep(paceOf(step));
  }
  return calls;
}

async function headless() {
  const input = await readStdin();
  const prompt = input.trim() ? `${input}\n\n${args.prompt}` : args.prompt;
  const step = pickStep(prompt);
  if (step.fail === 'auth') {
    logInvocation('print', prompt, step);
    process.stderr.write(
      `Please set an Auth method in your ${join(gemini, 'settings.json')} or specify one of the following environment variables before running: GEMINI_API_KEY, GOOGLE_GENAI_USE_VERTEXAI, GOOGLE_GENAI_USE_GCA\n`,
    );
    process.exit(step.exit ?? 41);
  }
  if (!trusted()) {
    process.stderr.write(
      'Gemini CLI is not running in a trusted directory. To proceed, either use `--skip-trust`, set the `GEMINI_CLI_TRUST_WORKSPACE=true` environment variable, or trust this directory in interactive mode. For more details, see https://geminicli.com/docs/cli/trusted-folders/#headless-and-automated-environments\n',
    );
    process.exit(55);
  }
  refuseMissingSession();
  await startSpans();
  sessionFile ??= newSessionFile(sessionId);
  logInvocation('print', prompt, step);
  remember('user', prompt);
  emit({ type: 'init', session_id: sessionId, model });
  emit({ type: 'message', role: 'user', content: prompt });
  if (step.fail !== undefined) return fail(step);
  const calls = await stream(step, prompt);
  const text = await actOut(step);
  remember('gemini', text);
  emit({ type: 'message', role: 'assistant', content: text, delta: true });
  if (step.is_error) {
    finish('error', text, step, calls, { type: 'Error', message: text });
    process.exit(step.exit ?? 1);
  }
  finish('success', text, step, calls);
  process.exit(step.exit ?? 0);
}

function refuseMissingSession() {
  if (args.resume === undefined || sessionFile) return;
  process.stderr.write('Error resuming session: No previous sessions found for this project.\n');
  process.exit(42);
}

async function chat() {
  // `gemini --resume <id>` in a terminal: the person talks to the agent.
  refuseMissingSession();
  await startSpans();
  const first = args['prompt-interactive'] ?? null;
  const step = pickStep(first);
  logInvocation('interactive', first, undefined);
  console.log(`Gemini CLI (stand-in) — ${args.resume !== undefined ? 'resumed' : 'new'} session ${sessionId}`);
  if (first) console.log(`You: ${first}`);
  console.log('Type your reply to the agent, or /quit to leave.');
  await chatLoop({ step, leave: ['/quit', '/exit'], remember: (line) => remember('user', line) });
}

await (interactive ? chat() : headless());
