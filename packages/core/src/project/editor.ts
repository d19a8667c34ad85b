import { UsageError } from '../errors.js';

/**
 * The person's editor on `dir`: `$VISUAL`, else `$EDITOR`, either of which may carry
 * arguments ("code --wait"). Refused in one line when neither is set.
 */
export function editorArgv(env: NodeJS.ProcessEnv, dir: string): { command: string; args: string[] } {
  const editor = (env.VISUAL || env.EDITOR || '').trim();
  if (!editor) throw new UsageError('set $VISUAL or $EDITOR to open the workspace (e.g. export EDITOR=vim)');
  const [command, ...args] = editor.split(/\s+/);
  return { command, args: [...args, dir] };
}
