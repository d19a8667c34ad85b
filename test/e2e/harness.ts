import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll } from 'vitest';
import { until } from '../../packages/core/src/testing/until.js';
import {
  LogJsonSchema,
  RunDetailJsonSchema,
  RunJsonSchema,
  type EventJson,
  type RunJson,
} from '../../packages/core/src/operations/shapes.js';

export type RunDetail = ReturnType<typeof RunDetailJsonSchema.parse>;

/** End-to-end harness: the built `shop` binary, a temp project, the stand-in `claude`. */
export const repoRoot = resolve(import.meta.dirname, '..', '..');
export const shopBin = join(repoRoot, 'packages', 'cli', 'bin', 'shop');
export const standin = join(repoRoot, 'scripts', 'claude-standin.mjs');
export const codexStandin = join(repoRoot, 'scripts', 'codex-standin.mjs');
export const geminiStandin = join(repoRoot, 'scripts', 'gemini-standin.mjs');

export interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface Project {
  dir: string;
  env: NodeJS.ProcessEnv;
  /** Runs `shop …` to completion. */
  shop(args: string[], opts?: { input?: string; env?: NodeJS.ProcessEnv; cwd?: string }): Result;
  /** Runs `shop …` to completion without blocking the event loop (for concurrent tests). */
  shopAsync(args: string[], opts?: { input?: string; env?: NodeJS.ProcessEnv }): Promise<Result>;
  /** Starts `shop …` in the background. */
  spawnShop(args: string[], opts?: { env?: NodeJS.ProcessEnv; cwd?: string }): Background;
  /** Writes a stand-in scenario and points SHOP_STANDIN_SCENARIO at it. */
  scenario(s: Scenario): void;
  /** Every invocation the stand-in logged. */
  invocations(): Invocation[];
  write(rel: string, text: string): void;
  read(rel: string): string;
  /** `shop status <id> --json`, checked against the documented shape. */
  status(id: number): RunDetail;
  /** `shop list --json`, checked against the documented shape. */
  list(): RunJson[];
  /** `.shop/signals/<run>.<call>.<agent>.<nonce>.json`, the file an agent reported to (found by listing the folder). */
  signalFile(run: number, call: string, agent: string): string;
  /** Writes a signal the way an agent does: tmp + rename, so no reader sees half a file. */
  writeSignal(run: number, call: string, agent: string, body: Record<string, unknown>): void;
}

export interface Step {
  status?: string;
  summary?: string;
  reason?: string;
  awaiting?: string;
  fields?: Record<string, unknown>;
  /** mcp: through Shop's MCP server, as the CLI was told of it (the `ask` tool with `ask`, its choices). */
  via?: 'file' | 'report' | 'promise' | 'none' | 'mcp';
  ask?: boolean;
  choices?: string[];
  /** Variables over the MCP server's (another attempt's SHOP_SIGNAL_FILE). */
  mcp_env?: Record<string, string>;
  raw?: string;
  sleep_ms?: number;
  after_ms?: number;
  exit?: number;
  is_error?: boolean;
  result?: string;
  cost?: number;
  turns?: number;
  reply_status?: string;
  /** stream-json events (a message, a tool use; a thought shows as Codex's reasoning item) and the time between them. */
  stream?: ({ text: string } | { thought: string } | { tool: string; input?: Record<string, unknown> })[];
  /** Codex / Gemini token counts reported for the turn (Codex: times the thread's turns). */
  usage?: Record<string, number>;
  /** Claude: false, a session whose results carry only each process's own figures (claude-standin.mjs spendOf). */
  saved_totals?: boolean;
  pace_ms?: number;
  /** Fails as Claude Code does: API errors (its is_error result with api_error_status), a network error, a bad key. */
  fail?: 529 | 429 | 500 | 'network' | 'auth';
  fail_text?: string;
  /** After reporting, the signal file is deleted: only the store's copy of a shop report remains. */
  drop_file?: boolean;
  /** A folder stands at the signal path while it reports: shop report can only keep it in the store. */
  block_file?: boolean;
  /** Taken whenever the prompt matches this regular expression (the n-th rule counts the other steps). */
  when_prompt?: string;
  /** Claude: before reporting, the agent calls this tool; the PreToolUse hooks of --settings decide it (see claude-standin.mjs). */
  tool_call?: { name: string; input?: Record<string, unknown> };
  /** Claude: the status reported when tool_call is denied (default: status). */
  denied_status?: string;
  /** Claude: a shell command the agent leaves running in the background (sh -c in a session of its own), before its tool call and report. */
  leave?: string;
  /** Claude: a shell command the agent runs to its end (sh -c) before its tool call and report; what it did is the log line's `shell`. */
  sh?: string;
  /** Files the agent changes in its cwd before it reports (text null: deleted), as its Edit or Write tool would. */
  write?: { path: string; text: string | null } | { path: string; text: string | null }[];
}
export interface Scenario {
  agents?: Record<string, Step[]>;
  default?: Step;
}
export interface Invocation {
  /** Which stand-in logged it. */
  cli: 'claude' | 'codex' | 'gemini';
  mode: 'print' | 'interactive' | 'said';
  agent: string;
  call: string;
  run: string;
  session_id: string;
  resumed: boolean;
  prompt: string;
  model: string | null;
  /** --max-budget-usd (a run() budget_usd, within the run's budget_usd), or null. */
  max_budget_usd?: number | null;
  permission_mode: string | null;
  allowed_tools: string[];
  system_prompt: string | null;
  /** The SHOP_SIGNAL_FILE it was given (print mode). */
  signal_file?: string | null;
  cwd: string;
  /** Its pid as it sees it: in a PID namespace, the namespace's (agentPid finds the machine's). */
  pid: number;
  /** The agent step it runs in (SHOP_STEP; null for a person's session, which Shop does not contain). */
  shop_step?: string | null;
  text?: string;
  /** What the step's `sh` command did. */
  shell?: { code: number | null; stdout: string; stderr: string };
  /** How many lines its session's transcript held when it started (0: a new session), and where it is. */
  remembered?: number;
  transcript?: string;
}

export interface Background {
  child: ChildProcess;
  /** stdout and stderr so far, interleaved. */
  output(): string;
  /** The exit code once the process ended and its output was read (null if killed by a signal). */
  exited: Promise<number | null>;
}

const madeDirs: string[] = [];
afterAll(() => {
  for (const dir of madeDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh project made by the real `shop init`, with the stand-in as `claude`; removed after the file's tests. */
/** A project on SQLite, or on a fresh PostgreSQL database of the test file's cluster (usePgCluster). */
export async function projectOn(
  store: 'sqlite' | 'postgres',
  cluster: { fresh(prefix: string): Promise<string> },
  prefix: string,
): Promise<Project> {
  const p = makeProject();
  if (store === 'postgres') p.env.SHOP_DATABASE_URL = await cluster.fresh(prefix);
  return p;
}

export function makeProject(): Project {
  // Real path: agents' cwd (process.cwd()) is compared with it.
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'shop-e2e-')));
  madeDirs.push(dir);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    SHOP_CLAUDE_BIN: standin,
    SHOP_CODEX_BIN: codexStandin,
    SHOP_GEMINI_BIN: geminiStandin,
    SHOP_STANDIN_LOG: join(dir, 'standin.jsonl'),
    // The stand-ins keep sessions where their CLIs do: here, never in the tester's home.
    CLAUDE_CONFIG_DIR: join(dir, '.claude-config'),
    CODEX_HOME: join(dir, '.codex-home'),
    GEMINI_CLI_HOME: join(dir, '.gemini-home'),
    SHOP_USER: 'tester',
    SHOP_DEBUG: '',
    // As a user's shell has it: npm test puts node_modules/.bin (this repository's `shop`)
    // first on PATH, which would hide an agent that cannot find `shop report`.
    PATH: (process.env.PATH ?? '')
      .split(':')
      .filter((d) => !d.includes('node_modules/.bin'))
      .join(':'),
  };
  delete env.SHOP_HOME;
  delete env.SHOP_STANDIN_SCENARIO;
  // Output on a pipe is plain whatever the test runner's environment says about colour.
  delete env.FORCE_COLOR;
  delete env.NO_COLOR;
  const p: Project = {
    dir,
    env,
    shop(args, opts = {}) {
      const r = spawnSync(process.execPath, [shopBin, ...args], {
        cwd: opts.cwd ?? dir,
        env: { ...env, ...opts.env },
        input: opts.input ?? '',
        encoding: 'utf8',
        timeout: 60_000,
      });
      return { code: r.status, stdout: r.stdout, stderr: r.stderr };
    },
    shopAsync(args, opts = {}) {
      const child = spawn(process.execPath, [shopBin, ...args], {
        cwd: dir,
        env: { ...env, ...opts.env },
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout!.on('data', (d) => (stdout += d));
      child.stderr!.on('data', (d) => (stderr += d));
      child.stdin!.end(opts.input ?? '');
      return new Promise((res) => child.on('close', (code) => res({ code, stdout, stderr })));
    },
    spawnShop(args, opts = {}) {
      const child = spawn(process.execPath, [shopBin, ...args], {
        cwd: opts.cwd ?? dir,
        env: { ...env, ...opts.env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout!.on('data', (d) => (out += d));
      child.stderr!.on('data', (d) => (out += d));
      // 'close', not 'exit': by then stdout and stderr are drained, so output() is complete.
      const exited = new Promise<number | null>((res) => child.on('close', (code) => res(code)));
      return { child, output: () => out, exited };
    },
    scenario(s) {
      const file = join(dir, 'scenario.json');
      writeFileSync(file, JSON.stringify(s));
      env.SHOP_STANDIN_SCENARIO = file;
    },
    invocations() {
      const file = env.SHOP_STANDIN_LOG!;
      if (!existsSync(file)) return [];
      return readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l));
    },
    write(rel, text) {
      writeFileSync(join(dir, rel), text);
    },
    read(rel) {
      return readFileSync(join(dir, rel), 'utf8');
    },
    status(id) {
      const r = p.shop(['status', String(id), '--json']);
      if (r.code !== 0) throw new Error(`shop status ${id} --json exited ${r.code}: ${r.stderr}`);
      return RunDetailJsonSchema.parse(JSON.parse(r.stdout));
    },
    list() {
      const r = p.shop(['list', '--json']);
      if (r.code !== 0) throw new Error(`shop list --json exited ${r.code}: ${r.stderr}`);
      return RunJsonSchema.array().parse(JSON.parse(r.stdout));
    },
    signalFile(run, call, agent) {
      // A branch's key ("1/2/1") is written with dashes in the file name; a random nonce per
      // invocation follows the agent's name. The file the call reported to, if it is there
      // (as any process that lists the folder finds it), else the name one would guess.
      const signals = join(dir, '.shop', 'signals');
      const stem = `${run}.${call.replaceAll('/', '-')}.${agent}`;
      const found = existsSync(signals)
        ? readdirSync(signals).filter((f) =>
            new RegExp(`^${stem.replaceAll('.', '\\.')}\\.[0-9a-f]{24}\\.json$`).test(f),
          )
        : [];
      return join(signals, found.length === 1 ? found[0] : `${stem}.json`);
    },
    writeSignal(run, call, agent, body) {
      const file = p.signalFile(run, call, agent);
      writeFileSync(`${file}.test.tmp`, JSON.stringify(body));
      renameSync(`${file}.test.tmp`, file);
    },
  };
  const init = p.shop(['init']);
  if (init.code !== 0) throw new Error(`shop init failed: ${init.stderr}`);
  return p;
}

/** The run id `shop run` prints on its first line. */
export function runId(r: Result | string): number {
  const text = typeof r === 'string' ? r : r.stdout;
  const m = /^run (\d+) started/m.exec(text);
  if (!m) throw new Error(`no run id in output:\n${text}`);
  return Number(m[1]);
}

/** The non-empty lines of a command's output. */
export function lines(text: string): string[] {
  return text.split('\n').filter(Boolean);
}

/** Polls until a positive signal (the one helper, shared with core's unit tests). */
export { until };

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether a process still runs: a zombie does not (a killed orphan stays one until init reaps
 * it, which isAlive cannot tell from a live process).
 */
export function isRunning(pid: number): boolean {
  if (!isAlive(pid)) return false;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] !== 'Z';
  } catch {
    // Gone meanwhile; or no /proc (not Linux), where isAlive is all there is to go by.
    return !existsSync('/proc/self');
  }
}

/**
 * Cuts these agents' lifeline (their driver's agent host, agents/agent-host.ts), so they
 * outlive their driver as if the host failed with it: what a takeover's own orphan check must
 * then deal with. The host is stopped (SIGSTOP) at once — it can neither see its driver die nor
 * tell it anything — and killed once its driver is gone, so the orphans it leaves are reaped.
 */
export function cutLifelines(agents: AgentRef[]): void {
  for (const ref of agents) {
    const agent = agentPid(ref);
    if (agent === null) continue;
    // The host is the agent's parent, or — in a PID namespace — above the step's init and unshare.
    let host = parentOf(agent);
    let argv: string[] = [];
    for (let up = 0; host !== null && host > 1 && up < 4; up++, host = parentOf(host)) {
      argv = readFileSync(`/proc/${host}/cmdline`, 'utf8').split('\0');
      if (argv.includes('shop-agent-host')) break;
    }
    const at = argv.indexOf('shop-agent-host');
    if (host === null || at < 0) continue;
    const driver = Number(argv[at + 1]);
    process.kill(host, 'SIGSTOP');
    const check = setInterval(() => {
      if (isRunning(driver)) return;
      clearInterval(check);
      try {
        process.kill(host, 'SIGKILL');
      } catch {
        /* gone */
      }
    }, 20);
  }
}

/** A stand-in as its log line or span names it: its own pid, and the agent step it runs in. */
export interface AgentRef {
  pid: number;
  shop_step?: string | null;
}

/**
 * The pid the machine knows for a stand-in, or null once it is gone. An agent Shop runs in a PID
 * namespace sees its own pid there (2, the same for every agent): it is found by its step's
 * SHOP_STEP marker and that pid at the end of its NSpid. A person's session (no step) is not in one.
 */
export function agentPid(ref: AgentRef): number | null {
  if (!ref.shop_step) return ref.pid;
  const needle = Buffer.from(`\0SHOP_STEP=${ref.shop_step}\0`);
  for (const name of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const nspid =
        /^NSpid:\s*(.*)$/m
          .exec(readFileSync(`/proc/${name}/status`, 'utf8'))?.[1]
          ?.trim()
          .split(/\s+/) ?? [];
      if (Number(nspid.at(-1)) !== ref.pid) continue;
      if (Buffer.concat([Buffer.from('\0'), readFileSync(`/proc/${name}/environ`), Buffer.from('\0')]).includes(needle))
        return Number(name);
    } catch {
      /* gone meanwhile, or not ours */
    }
  }
  return null;
}

/** Whether the stand-in still runs (found, and not a zombie). */
export function agentRunning(ref: AgentRef): boolean {
  const pid = agentPid(ref);
  return pid !== null && isRunning(pid);
}

/**
 * The processes still running that were started for this project — by its tests' `shop`
 * commands and whatever those started (found by the project's SHOP_STANDIN_LOG in their
 * environment, which a process that cleared its environment would hide; a test's leftovers don't).
 */
export function projectProcesses(p: Project): { pid: number; cmd: string }[] {
  const needle = Buffer.from(`\0SHOP_STANDIN_LOG=${p.env.SHOP_STANDIN_LOG}\0`);
  const found: { pid: number; cmd: string }[] = [];
  for (const name of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const env = Buffer.concat([Buffer.from('\0'), readFileSync(`/proc/${name}/environ`), Buffer.from('\0')]);
      if (env.includes(needle) && isRunning(Number(name)))
        found.push({
          pid: Number(name),
          cmd: readFileSync(`/proc/${name}/cmdline`, 'utf8').replaceAll('\0', ' ').trim().slice(0, 200),
        });
    } catch {
      /* gone meanwhile, or not ours */
    }
  }
  return found;
}

function parentOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return null;
  }
}

/** `shop log <id> --json`'s audit events, checked against the documented shape. */
export function trail(p: Project, id: number): EventJson[] {
  const r = p.shop(['log', String(id), '--json']);
  if (r.code !== 0) throw new Error(`shop log ${id} --json exited ${r.code}: ${r.stderr}`);
  return LogJsonSchema.parse(JSON.parse(r.stdout)).events;
}

const workers: { bg: Background; p: Project }[] = [];

/** Starts `shop watch …` and waits for its first line; killLeftovers() (afterEach) ends it if a test does not. */
export async function startWorker(p: Project, args: string[] = []): Promise<Background> {
  const bg = p.spawnShop(['watch', ...args]);
  workers.push({ bg, p });
  await until(
    'shop watch to start',
    () => /shop watch: watching |"type":"watching"/.test(bg.output()) || bg.child.exitCode !== null,
  );
  if (bg.child.exitCode !== null) throw new Error(`shop watch exited ${bg.child.exitCode}:\n${bg.output()}`);
  return bg;
}

/** SIGTERMs a worker; its exit code, or 'still running' after `ms`. */
export async function stopWorker(bg: Background, ms = 15_000): Promise<number | null | 'still running'> {
  bg.child.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'still running'>((res) => (timer = setTimeout(() => res('still running'), ms)));
  return Promise.race([bg.exited, late]).finally(() => clearTimeout(timer));
}

/** SIGKILLs the workers still running, then the stand-in agents their projects left behind. */
export async function killLeftovers(): Promise<void> {
  const done = workers.splice(0);
  for (const { bg } of done) {
    if (bg.child.exitCode === null && bg.child.signalCode === null) {
      bg.child.kill('SIGKILL');
      await bg.exited;
    }
  }
  for (const p of new Set(done.map((w) => w.p))) {
    for (const inv of p.invocations()) {
      const pid = agentPid(inv);
      if (pid === null) continue;
      let cmd: string;
      try {
        cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      } catch {
        continue;
      }
      if (/(claude|codex|gemini)-standin/.test(cmd) && isRunning(pid)) process.kill(pid, 'SIGKILL');
    }
  }
}

/** A port free right now on 127.0.0.1 (for a server that must know its address before it listens). */
export async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}
