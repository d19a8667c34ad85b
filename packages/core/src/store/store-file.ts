import { chmodSync, closeSync, openSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { StoreError } from './store-errors.js';

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
  if (size <= 0) {
    const runsDir = join(dirname(file), 'runs');
    const earlier = runFolders(runsDir);
    if (earlier > 0) {
      throw new StoreError(
        `the store ${file} is ${size < 0 ? 'missing' : 'empty'} but ${runsDir} holds the files of ${earlier} earlier run${earlier === 1 ? '' : 's'}: the store was lost or cut short; restore it from a backup, or start afresh by moving the old files aside (mv ${runsDir} ${runsDir}.old)`,
        file, 'SHOP_STORE_LOST',
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

/** The file's size, or -1 when there is none. */
function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return -1;
  }
}

/** How many run folders (named by a run id) `dir` holds. */
function runFolders(dir: string): number {
  try {
    return readdirSync(dir).filter((name) => /^\d+$/.test(name)).length;
  } catch {
    return 0;
  }
}
