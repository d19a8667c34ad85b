import { execa } from 'execa';
import { UsageError } from '@shop/core/errors';
import { editorArgv } from '@shop/core/project/editor';
import { cliBin, type CliName } from '@shop/core/agents/dialects/dialect';
import { cliDialect } from '@shop/core/agents/dialects/dialect-of';
import { binDir, type Context } from './context.js';

/**
 * Hands the terminal to the agent's CLI — `claude` unless said (attached, in `cwd`), with
 * Shop's variables so the agent can `shop report`. SIGINT is ignored here meanwhile: Ctrl-C
 * belongs to the CLI.
 */
export async function openClaude(ctx: Context, args: string[], cwd: string, env: Record<string, string>, cli: CliName = 'claude'): Promise<void> {
  const bin = cliBin(cli, ctx.env);
  const ignore = () => {};
  process.on('SIGINT', ignore);
  try {
    const child = await execa(bin, args, { cwd, stdio: 'inherit', reject: false, env: { ...env, PATH: `${binDir}:${process.env.PATH ?? ''}` } });
    if (child.failed && child.exitCode === undefined) {
      throw new UsageError(`could not open ${bin}: ${String(child.message).split('\n')[0]} (install ${cliDialect(cli).label} or set SHOP_${cli.toUpperCase()}_BIN)`);
    }
  } finally {
    process.off('SIGINT', ignore);
  }
}

/** `$VISUAL` (else `$EDITOR`) on `dir`, attached to this terminal until it exits. */
export async function openEditor(ctx: Context, dir: string): Promise<void> {
  const { command, args } = editorArgv(ctx.env, dir);
  ctx.out(`Opening ${dir} in ${command}; the run goes on when the editor exits`);
  const child = await execa(command, args, { cwd: dir, stdio: 'inherit', reject: false, env: ctx.env });
  if (child.failed && child.exitCode === undefined) throw new UsageError(`could not open ${command}: ${String(child.message).split('\n')[0]} (check $VISUAL / $EDITOR)`);
}
