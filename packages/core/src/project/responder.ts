import { execFileSync } from 'node:child_process';
import { userInfo } from 'node:os';

/** Who answers: --by, else SHOP_USER, else git user.name, else the OS user. */
export function responder(by: string | undefined, cwd: string, env: NodeJS.ProcessEnv = process.env): string {
  if (by) return by;
  if (env.SHOP_USER) return env.SHOP_USER;
  try {
    const name = execFileSync('git', ['config', 'user.name'], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    if (name) return name;
  } catch {
    /* no git or no name */
  }
  return userInfo().username;
}
