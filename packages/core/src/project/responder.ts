import { execFileSync } from 'node:child_process';
import { userInfo } from 'node:os';
import { UsageError } from '../errors.js';
import { quoted } from '../text.js';

/** A name is one short line: it is shown in every answer line, the audit trail and notices. */
const MAX_NAME = 200;

/** Who answers: --by, else SHOP_USER, else git user.name, else the OS user. */
export function responder(by: string | undefined, cwd: string, env: NodeJS.ProcessEnv = process.env): string {
  if (by) return checkedName(by, '--by');
  if (env.SHOP_USER) return checkedName(env.SHOP_USER, 'SHOP_USER');
  try {
    const name = execFileSync('git', ['config', 'user.name'], {
      cwd,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    if (name) return checkedName(name, 'git user.name');
  } catch (e) {
    if (e instanceof UsageError) throw e;
    /* no git or no name */
  }
  return userInfo().username;
}

/** A name with a newline or an escape sequence would forge lines on a terminal: refused, saying where it came from. */
export function checkedName(name: string, from: string): string {
  if (/\p{Cc}/u.test(name)) {
    const shown = name.slice(0, 60).replace(/\p{Cc}/gu, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
    throw new UsageError(`${from} "${shown}" holds a control character (a newline, an escape…); give a plain name`);
  }
  if (name.length > MAX_NAME)
    throw new UsageError(`${from} ${quoted(name, 40)} is longer than ${MAX_NAME} characters; give a shorter name`);
  return name;
}
