import { execFile } from 'node:child_process';
import type { AgentDialect } from './dialects/dialect.js';

/** How long a CLI may take to say whether it is logged in. */
const CHECK_MS = 10_000;
/** Logged in, per binary and home: not asked again by this process (a logout is found by the step failing). */
const loggedIn = new Set<string>();

/**
 * Before a step of a CLI that never says it is logged out: its own answer (`codex login status`).
 * Returns the step's error when it says not logged in — its words contain "not logged in", which
 * is never retried — else null (logged in, an API key given, or no answer: the step goes on).
 */
export async function loggedOut(
  dialect: AgentDialect,
  file: string,
  agentEnv: () => Record<string, string>,
): Promise<string | null> {
  const check = dialect.loginCheck;
  if (!check) return null;
  // Made only here, for a CLI with a check: a copy of the environment is ~0.1 ms of a driver's step.
  const env = agentEnv();
  if (check.keys.some((k) => env[k])) return null;
  const key = [file, env.HOME ?? '', env.CODEX_HOME ?? ''].join('\0');
  if (loggedIn.has(key)) return null;
  const said = await new Promise<{ code: number | null; text: string }>((resolve) => {
    execFile(file, check.args, { env, timeout: CHECK_MS, maxBuffer: 64 * 1024 }, (e, stdout, stderr) => {
      const code = e ? (typeof e.code === 'number' ? e.code : null) : 0;
      resolve({ code, text: `${stdout}\n${stderr}` });
    });
  });
  if (said.code === 0) loggedIn.add(key);
  if (said.code === 0 || !check.loggedOut.test(said.text)) return null;
  return `${dialect.label} is not logged in (\`${dialect.cli} ${check.args.join(' ')}\`: ${firstLine(said.text)}): ${check.fix}`;
}

function firstLine(text: string): string {
  return (
    text
      .split('\n')
      .map((l) => l.trim())
      .find((l) => /not logged in/i.test(l)) ?? 'not logged in'
  ).slice(0, 200);
}
