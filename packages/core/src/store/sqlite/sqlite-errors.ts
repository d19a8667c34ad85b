import { StoreError } from '../../errors.js';

export { StoreError };

/**
 * What SQLite's error codes (better-sqlite3's SqliteError `code`, extended codes included)
 * mean for a person; with `opening`, the file system's too (making the store's folder).
 * Null for any other error: it is not the store's, and goes on as it was.
 */
export function storeError(e: unknown, file: string, opening = false): StoreError | null {
  // Already said (a store that cannot be read, one lost): as it is.
  if (e instanceof StoreError) return e;
  const code = (e as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || (!code.startsWith('SQLITE_') && !opening)) return null;
  const say = (text: string) => new StoreError(text, file, code);
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
    return say(
      `the store ${file} is locked by another process (waited 5 s); try again when it is done, or find it with: fuser ${file}`,
    );
  }
  if (code.startsWith('SQLITE_READONLY') || code === 'EACCES' || code === 'EPERM' || code === 'EROFS') {
    return say(
      `the store ${file} is read-only (check the permissions of the file and its folder, or set SHOP_HOME to a writable folder)`,
    );
  }
  if (code.startsWith('SQLITE_CANTOPEN')) {
    return say(`cannot open the store ${file} (check that its folder exists and is writable, or set SHOP_HOME)`);
  }
  // SQLite meets a full disk under several names: no page left (FULL), the shared-memory
  // index of the WAL that cannot grow (IOERR_SHMSIZE), a write that fails half-way (IOERR_WRITE).
  if (code === 'SQLITE_FULL' || code === 'ENOSPC' || code === 'SQLITE_IOERR_SHMSIZE') {
    return say(`the disk holding the store ${file} is full; free some space and try again`);
  }
  if (code === 'SQLITE_IOERR_WRITE' || code === 'SQLITE_IOERR_FSYNC' || code === 'SQLITE_IOERR_TRUNCATE') {
    return say(
      `cannot write the store ${file}: the disk is full or failing (${code}); free some space, check the disk, and try again`,
    );
  }
  if (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB') {
    return say(
      `${file} is not a Shop store (damaged, or another kind of file); restore it from a backup, or move it aside and run shop init`,
    );
  }
  if (code.startsWith('SQLITE_IOERR')) {
    return say(`cannot read or write the store ${file} (${code}); check the disk and the file, then try again`);
  }
  return null;
}
