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
  if (opening) {
    const native = nativeModuleError(e, file);
    if (native) return native;
  }
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

/**
 * better-sqlite3's native module missing (its install script did not run: npm install
 * --ignore-scripts, or an npm that runs only the scripts it was told to allow) or built for
 * another Node: met when the first store opens, said in one line with how to build it, in the
 * folder whose node_modules holds it (the installed package, or a clone). Null for anything else.
 */
function nativeModuleError(e: unknown, file: string): StoreError | null {
  const message = e instanceof Error ? e.message : '';
  const missing = message.startsWith('Could not locate the bindings file');
  if (!missing && (e as { code?: unknown } | null)?.code !== 'ERR_DLOPEN_FAILED') return null;
  const dir = /([^\s'"]+)[\\/]node_modules[\\/]better-sqlite3[\\/]/.exec(message)?.[1];
  if (!dir) return null;
  const why = missing ? 'is not built' : `does not load on Node ${process.versions.node} (built for another Node?)`;
  return new StoreError(
    `better-sqlite3, SQLite's native module, ${why}: run npm rebuild better-sqlite3 in ${dir} (it fetches a prebuilt binary, or compiles one)`,
    file,
    'ERR_NATIVE_MODULE',
  );
}
