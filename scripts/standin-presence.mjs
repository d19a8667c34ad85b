// A stand-in's presence on its session, as the kernel knows it (Linux). While the process lives it
// holds an abstract unix socket named for its spans file, its session and its step; the kernel
// drops the socket the moment the process dies, however it dies — kill -9, or the end of its PID
// namespace, which leave no end in the spans. Right after taking its own, a stand-in reads which
// others are held on its session (/proc/net/unix): those processes were alive then. The spans'
// overlap check (test/e2e/spans.ts) takes that word over a missing end.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** The abstract unix socket names held on this machine now (without the '@'), or null without /proc. */
export function heldNames() {
  let table;
  try {
    table = readFileSync('/proc/net/unix', 'utf8');
  } catch {
    return null;
  }
  // Num RefCount Protocol Flags Type St Inode Path: an abstract name's path starts with '@', and
  // node binds the whole sun_path, so the name's padding (NULs) shows as '@' too.
  return table
    .split('\n')
    .slice(1)
    .map((line) => line.trim().split(/\s+/)[7])
    .filter((path) => path?.startsWith('@'))
    .map((path) => path.slice(1).replace(/@+$/, ''));
}

/**
 * Holds this process's presence on `session` for the rest of its life. Its name, and the names of
 * the others present on the session right after it took its own; nulls where that cannot be known.
 */
export async function holdPresence(spansFile, session, self) {
  const tag = createHash('sha256').update(spansFile).digest('hex').slice(0, 12);
  const prefix = `shop-standin-${tag}:${session}:`;
  const name = `${prefix}${self}`;
  const server = createServer();
  try {
    await new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(`\0${name}`, resolve);
    });
  } catch {
    return { presence: null, alongside: null };
  }
  // Held, not waited on: the process ends when its work does.
  server.unref();
  const held = heldNames();
  return {
    presence: name,
    alongside: held ? held.filter((n) => n.startsWith(prefix) && n !== name) : null,
  };
}
