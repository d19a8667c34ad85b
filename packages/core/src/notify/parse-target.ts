import { capText } from '../text.js';
import type { NotifyTarget } from './ask-notice.js';
import { splitArgv } from './split-argv.js';

const ACCEPTED = 'use desktop, webhook:<url>, slack:<url>, command:<argv…>';

/**
 * Reads one `notify = {…}` entry. A string back is a one-line error that names the entry
 * (URLs cut to scheme + host, since webhook URLs carry their secret in path and query).
 */
export function parseTarget(entry: string): NotifyTarget | string {
  const text = entry.trim();
  if (text === 'desktop') return { kind: 'desktop' };
  const colon = text.indexOf(':');
  const kind = colon < 0 ? text : text.slice(0, colon);
  const rest = colon < 0 ? '' : text.slice(colon + 1).trim();
  switch (kind) {
    case 'webhook':
      return isUrl(rest, ['http:', 'https:'])
        ? { kind, url: rest }
        : badEntry(text, 'webhook needs an http(s) URL: webhook:https://…');
    case 'slack':
      return isUrl(rest, ['https:'])
        ? { kind, url: rest }
        : badEntry(text, 'slack needs an https URL: slack:https://hooks.slack.com/…');
    case 'command': {
      // Split as a shell splits words (quotes, backslashes), run without one: no $VARS or globs.
      const argv = splitArgv(rest);
      if (!Array.isArray(argv))
        return badEntry(
          text,
          `command ${argv.problem}: quote as in a shell, e.g. command:sh -c 'echo "$SHOP_QUESTION"'`,
        );
      return argv.length > 0 ? { kind, argv } : badEntry(text, 'command needs a program: command:<program> <args…>');
    }
    default:
      return `notify: "${safeText(text)}" is not a notifier (${ACCEPTED})`;
  }
}

/** How a target is shown in messages and logs: never a URL's path or query, where tokens live. */
export function describeTarget(t: NotifyTarget): string {
  switch (t.kind) {
    case 'desktop':
      return 'desktop';
    case 'webhook':
    case 'slack':
      return `${t.kind}:${safeUrl(t.url)}`;
    case 'command':
      return `command:${t.argv[0] ?? ''}`;
  }
}

function badEntry(text: string, hint: string): string {
  return `notify: "${safeText(text)}" is not a notifier (${hint})`;
}

function isUrl(raw: string, protocols: string[]): boolean {
  if (/\s/.test(raw)) return false;
  try {
    const u = new URL(raw);
    return protocols.includes(u.protocol) && u.hostname !== '';
  } catch {
    return false;
  }
}

/** scheme://host[:port], plus "/…" when anything followed; user:password@ is dropped too. */
export function safeUrl(raw: string): string {
  try {
    const u = new URL(raw);
    const more = u.pathname !== '/' || u.search !== '' || u.hash !== '';
    return `${u.protocol}//${u.host}${more ? '/…' : ''}`;
  } catch {
    return safeText(raw);
  }
}

/**
 * A raw entry as it may be shown: as describeTarget when it parses, otherwise with every
 * URL-looking part cut to scheme + host (a mistyped "Slack:https://hooks…/secret" must
 * not print its secret either).
 */
export function describeEntry(entry: string): string {
  const target = parseTarget(entry);
  return typeof target === 'string' ? safeText(entry.trim()) : describeTarget(target);
}

function safeText(text: string): string {
  const cut = text.replace(
    /([a-z][a-z0-9+.-]*:\/\/)(?:[^\s/?#@]*@)?([^\s/?#]*)(\S*)/gi,
    (_m, scheme: string, host: string, rest: string) => `${scheme}${host}${rest === '' || rest === '/' ? '' : '/…'}`,
  );
  return capText(cut, 120);
}
