import { execa } from 'execa';
import { UsageError } from '@shop/core/errors';
import { editorArgv } from '@shop/core/project/editor';
import { binDir, type Context } from './context.js';

/**
 * Hands the terminal to `claude` (attached, in `cwd`), with Shop's variables so the agent
 * can `shop report`. SIGINT is ignored here meanwhile: Ctrl-C belongs to Claude Code.
 */
export async function openClaude(ctx: Context, args: string[], cwd: string, env: Record<string, string>): Promise<void> {
  const bin = ctx.env.SHOP_CLAUDE_BIN || 'claude';
  const ignore = () => {};
  process.on('SIGINT', ignore);
  try {
    const child = await execa(bin, args, { cwd, stdio: 'inherit', reject: false, env: { ...env, PATH: `${binDir}:${process.env.PATH ?? ''}` } });
    if (child.failed && child.exitCode === undefined) {
      throw new UsageError(`could not open ${bin}: ${String(child.message).split('\n')[0]} (install Claude Code or set SHOP_CLAUDE_BIN)`);
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
