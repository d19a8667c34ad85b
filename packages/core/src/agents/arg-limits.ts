import type { AgentDialect } from './dialects/dialect.js';

/**
 * Bytes Linux passes in one command-line argument, its terminating NUL included
 * (MAX_ARG_STRLEN: 32 pages of 4 KiB). A longer one makes exec fail with E2BIG, whatever the
 * total: a 200 KB prompt can never reach an agent CLI as an argument.
 */
export const MAX_ARG_BYTES = 32 * 4096;

const count = (n: number) => n.toLocaleString('en-US');

/**
 * Why the agent's command line cannot be started, told before anything is spawned: an argument
 * over Linux's bound, named as a person knows it (the prompt, the agent's instructions) with its
 * size, the bound and what to do; null when every argument fits (or on a system without the bound).
 *
 * Why not hand a long prompt over another way: Claude Code reads a prompt from stdin, but its
 * `--permission-prompt-tool stdio` (in-turn gates) speaks on stdin too, and the agent's
 * instructions ride on `--append-system-prompt`; Codex, Gemini CLI and an agent's own `command:`
 * each differ again. One rule every dialect keeps beats a way only some would take.
 */
export function argTooLong(
  dialect: AgentDialect,
  step: { agent: { name: string; file: string }; prompt: string; system: string },
  args: string[],
  platform: NodeJS.Platform = process.platform,
): string | null {
  if (platform !== 'linux') return null;
  // A UTF-16 unit is at most 3 bytes of UTF-8: only a long string is measured.
  const arg = args.find((a) => a.length * 3 >= MAX_ARG_BYTES && Buffer.byteLength(a) + 1 > MAX_ARG_BYTES);
  if (arg === undefined) return null;
  const { name, file } = step.agent;
  const who = dialect.cli === 'command' ? `${name}'s command` : dialect.label;
  const size = `${count(Buffer.byteLength(arg))} bytes, over the ${count(MAX_ARG_BYTES - 1)} Linux takes in one command-line argument (MAX_ARG_STRLEN), so ${who} was not started`;
  if (arg === step.system)
    return `${name}'s instructions (${file} with Shop's signal protocol) are ${size}; shorten ${file}, or move the detail into a file the agent reads`;
  const what =
    arg === step.prompt
      ? `the prompt to ${name}`
      : `the prompt to ${name} with its instructions (${who} takes them as one argument)`;
  return `${what} is ${size}; put the long text in a file in the workspace and give the agent its path`;
}
