import { chmodSync, closeSync, openSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fsWhy } from '../../fs-why.js';
import { StoreError } from './sqlite-errors.js';

/** The store and the files SQLite keeps beside it (WAL mode). */
const companions = (file: string) => [file, `${file}-wal`, `${file}-shm`];

/**
 * Before SQLite opens `file`. A store that is missing or empty while run folders sit beside it
 * was lost or cut short: opening it would make a new empty store whose run 1 writes its logs
 * into the old run 1's folder — refused, with what to do. A new store is created private
 * (0600; SQLite gives its -wal and -shm files the same mode), and an older one made readable
 * by others is made private too: it holds prompts, answers and agents' words.
 */
export function prepareStoreFile(file: string): void {
  if (file === ':memory:') return;
  const size = sizeOf(file);
  // One this process may not read (or not even see) is not a missing or an empty store.
  if (size >= 0) mustRead(file);
  if (size <= 0) {
    const runsDir = join(dirname(file), 'runs');
    const earlier = runFolders(runsDir);
    if (earlier > 0) {
      throw new StoreError(
        `the store ${file} is ${size < 0 ? 'missing' : 'empty'} but ${runsDir} holds the files of ${earlier} earlier run${earlier === 1 ? '' : 's'}: the store was lost or cut short; restore it from a backup, or start afresh by moving the old files aside (mv ${runsDir} ${runsDir}.old)`,
        file,
        'SHOP_STORE_LOST',
      );
    }
    if (size < 0) {
      try {
        closeSync(openSync(file, 'a', 0o600));
      } catch {
        /* no folder, no permission: SQLite meets the same and says it naming the file */
      }
    }
  }
  for (const f of companions(file)) {
    try {
      if (statSync(f).mode & 0o077) chmodSync(f, 0o600);
    } catch {
      /* not there (yet), or not ours to change: SQLite says so if it matters */
    }
  }
}

/** The file's size, or -1 when there is none; a file that cannot be looked at (permission denied on a folder above it) is a StoreError. */
function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return -1;
    throw cannotRead(file, e);
  }
}

/** A store this process may not read: said so, with why, before SQLite says only that it cannot open it. */
function mustRead(file: string): void {
  try {
    closeSync(openSync(file, 'r'));
  } catch (e) {
    throw cannotRead(file, e);
  }
}

function cannotRead(file: string, e: unknown): Error {
  const why = fsWhy(e);
  if (!why) return e as Error;
  return new StoreError(
    `cannot read the store ${file}: ${why}; check the permissions of the file and of the folders above it (ls -ld ${dirname(file)} ${file}), or set SHOP_HOME to a folder of yours`,
    file,
    (e as NodeJS.ErrnoException).code!,
  );
}

/** How many run folders (named by a run id) `dir` holds. */
function runFolders(dir: string): number {
  try {
    return readdirSync(dir).filter((name) => /^\d+$/.test(name)).length;
  } catch {
    return 0;
  }
}
