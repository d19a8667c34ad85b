import { UsageError, cliBin, cliDialect, editorArgv } from '@shop/core';
import type { CliName } from '@shop/core';
import { runAttached } from '@shop/tui/terminal/run-attached';
import { binDir, type Context } from './context.js';

/**
 * Hands the terminal to the agent's CLI — `claude` unless said (attached, in `cwd`), with
 * Shop's variables (over this process's environment) so the agent can `shop report`.
 * Ctrl-C belongs to the CLI meanwhile.
 */
export async function openClaude(
  ctx: Context,
  args: string[],
  cwd: string,
  env: Record<string, string>,
  cli: CliName = 'claude',
): Promise<void> {
  const bin = cliBin(cli, ctx.env);
  const { error } = await runAttached(
    { command: bin, args, cwd, env: { ...process.env, ...env, PATH: `${binDir}:${process.env.PATH ?? ''}` } },
    null,
  );
  if (error)
    throw new UsageError(
      `could not open ${bin}: ${error} (install ${cliDialect(cli).label} or set SHOP_${cli.toUpperCase()}_BIN)`,
    );
}

/** `$VISUAL` (else `$EDITOR`) on `dir`, attached to this terminal until it exits. */
export async function openEditor(ctx: Context, dir: string): Promise<void> {
  const { command, args } = editorArgv(ctx.env, dir);
  ctx.out(`Opening ${dir} in ${command}; the run goes on when the editor exits`);
  const { error } = await runAttached({ command, args, cwd: dir, env: { ...process.env, ...ctx.env } }, null);
  if (error) throw new UsageError(`could not open ${command}: ${error} (check $VISUAL / $EDITOR)`);
}
