import { StoreError } from '../../errors.js';

/** Where a PostgreSQL store is, for a person: host:port/database, never the password. */
export function pgWhere(url: string): string {
  try {
    const u = new URL(url);
    const host = u.hostname || u.searchParams.get('host') || 'localhost';
    return `${host}:${u.port || '5432'}${u.pathname.length > 1 ? u.pathname : ''}`;
  } catch {
    return 'the PostgreSQL URL';
  }
}

const NETWORK = new Set([
  'ECONNREFUSED',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ECONNRESET',
  'EPIPE',
]);

/** The code of a pg or network error (an AggregateError of several addresses: its first). */
function codeOf(e: unknown): string | null {
  const err = e as { code?: unknown; errors?: unknown[] } | null;
  if (typeof err?.code === 'string') return err.code;
  const first = Array.isArray(err?.errors) ? (err.errors[0] as { code?: unknown } | undefined) : undefined;
  return typeof first?.code === 'string' ? first.code : null;
}

/**
 * What a PostgreSQL or connection error means for a person: one line naming the server
 * (host:port/database) and where its URL came from (`source`: SHOP_DATABASE_URL or the file),
 * as a StoreError (exit 1). Null for any other error: it is not the store's.
 */
export function pgStoreError(e: unknown, url: string, source: string): StoreError | null {
  if (e instanceof StoreError) return e;
  const code = codeOf(e);
  const message = String((e as { message?: unknown } | null)?.message ?? '');
  const at = pgWhere(url);
  const server = at.replace(/\/.*$/, '');
  const database = at.includes('/') ? at.slice(at.indexOf('/') + 1) : '';
  const user = safeUser(url);
  const say = (text: string) => new StoreError(text, at, code ?? 'PG');
  if (code && NETWORK.has(code)) {
    const why =
      code === 'ENOTFOUND' || code === 'EAI_AGAIN'
        ? 'no such host'
        : code === 'ECONNREFUSED'
          ? 'connection refused'
          : code === 'ECONNRESET' || code === 'EPIPE'
            ? 'connection reset'
            : 'no answer';
    return say(
      `cannot connect to PostgreSQL at ${server} (${why}); check that the server runs and accepts connections there, and check ${source}`,
    );
  }
  if (/timeout expired|connection timeout/i.test(message)) {
    return say(
      `cannot connect to PostgreSQL at ${server} (no answer in time); check that the server runs and accepts connections there, and check ${source}`,
    );
  }
  if (/Connection terminated/i.test(message)) {
    return say(
      `lost the connection to PostgreSQL at ${server} (${message}); check that the server runs, then try again`,
    );
  }
  if (/does not support SSL/i.test(message)) {
    return say(`PostgreSQL at ${server} does not accept SSL connections; remove sslmode from the URL in ${source}`);
  }
  switch (code) {
    case '28P01':
    case '28000':
      return say(
        `PostgreSQL at ${server} refused ${user ? `user ${user}` : 'the login'}: authentication failed; check the user and password in ${source}`,
      );
    case '3D000':
      return say(
        `database ${database || '(none)'} does not exist on PostgreSQL at ${server}; create it (createdb ${database || 'shop'}) or fix ${source}`,
      );
    case '42501':
      return say(
        `PostgreSQL at ${server} denied ${user ? `user ${user}` : 'the user'} a permission Shop needs (${message}); grant it, or use the database's owner in ${source}`,
      );
    case '53300':
      return say(
        `PostgreSQL at ${server} has no free connections (too many clients); raise max_connections or stop some clients, then try again`,
      );
    case '53100':
      return say(`the disk of PostgreSQL at ${server} is full; free some space and try again`);
    case '57P01':
    case '57P02':
    case '57P03':
      return say(`PostgreSQL at ${server} is shutting down or starting up; try again in a moment`);
    default:
      return null;
  }
}

function safeUser(url: string): string {
  try {
    return decodeURIComponent(new URL(url).username);
  } catch {
    return '';
  }
}
