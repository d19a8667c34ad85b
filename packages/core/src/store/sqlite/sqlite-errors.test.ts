import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSqliteStore } from './sqlite-store.js';
import { StoreError, storeError } from './sqlite-errors.js';
import { tempDir } from '../../testing/temp-dir.js';

const file = '/p/.shop/shop.db';
const coded = (code: string) => Object.assign(new Error('sqlite says no'), { code });

describe('storeError', () => {
  it('names the store file and what to do for each kind of trouble', () => {
    expect(storeError(coded('SQLITE_BUSY'), file)?.message).toBe(
      `the store ${file} is locked by another process (waited 5 s); try again when it is done, or find it with: fuser ${file}`,
    );
    expect(storeError(coded('SQLITE_READONLY_DIRECTORY'), file)?.message).toMatch(
      new RegExp(`^the store ${file} is read-only \\(check the permissions`),
    );
    expect(storeError(coded('SQLITE_CANTOPEN'), file)?.message).toMatch(/^cannot open the store \/p\/\.shop\/shop\.db/);
    expect(storeError(coded('SQLITE_FULL'), file)?.message).toMatch(
      /disk holding the store .* is full; free some space/,
    );
    // A full disk met while the WAL's shared-memory index grows, or half-way through a write.
    expect(storeError(coded('SQLITE_IOERR_SHMSIZE'), file)?.message).toBe(
      `the disk holding the store ${file} is full; free some space and try again`,
    );
    expect(storeError(coded('SQLITE_IOERR_WRITE'), file)?.message).toBe(
      `cannot write the store ${file}: the disk is full or failing (SQLITE_IOERR_WRITE); free some space, check the disk, and try again`,
    );
    expect(storeError(coded('SQLITE_NOTADB'), file)?.message).toMatch(/^\/p\/\.shop\/shop\.db is not a Shop store/);
    expect(storeError(coded('SQLITE_CORRUPT'), file)).toBeInstanceOf(StoreError);
    expect(storeError(coded('SQLITE_BUSY'), file)?.exitCode).toBe(1);
  });

  it("says in one line how to build better-sqlite3's native module when it is missing or will not load", () => {
    const bindings = new Error(
      'Could not locate the bindings file. Tried:\n → /g/lib/node_modules/shop/node_modules/better-sqlite3/build/better_sqlite3.node\n → /g/lib/node_modules/shop/node_modules/better-sqlite3/build/Debug/better_sqlite3.node',
    );
    expect(storeError(bindings, file, true)?.message).toBe(
      "better-sqlite3, SQLite's native module, is not built: run npm rebuild better-sqlite3 in /g/lib/node_modules/shop (it fetches a prebuilt binary, or compiles one)",
    );
    const abi = Object.assign(
      new Error(
        "The module '/c/node_modules/better-sqlite3/build/Release/better_sqlite3.node'\nwas compiled against a different Node.js version",
      ),
      { code: 'ERR_DLOPEN_FAILED' },
    );
    expect(storeError(abi, file, true)?.message).toMatch(
      /^better-sqlite3, SQLite's native module, does not load on Node [\d.]+ \(built for another Node\?\): run npm rebuild better-sqlite3 in \/c \(/,
    );
    // Another module's dlopen failure, or the same text met after opening, is not this.
    expect(
      storeError(Object.assign(new Error('/x/other.node: bad'), { code: 'ERR_DLOPEN_FAILED' }), file, true),
    ).toBeNull();
    expect(storeError(bindings, file)).toBeNull();
  });

  it("leaves other errors alone; the file system's only while opening", () => {
    expect(storeError(new Error('boom'), file)).toBeNull();
    expect(storeError(coded('SQLITE_CONSTRAINT_PRIMARYKEY'), file)).toBeNull();
    expect(storeError(coded('EACCES'), file)).toBeNull();
    expect(storeError(coded('EACCES'), file, true)?.message).toMatch(/is read-only/);
    expect(storeError(coded('ENOSPC'), file, true)?.message).toMatch(/is full/);
  });
});

describe('openSqliteStore', () => {
  it('refuses a file that is not a database, naming it', () => {
    const bad = join(tempDir('shop-bad-'), 'shop.db');
    writeFileSync(bad, 'not a database, only words '.repeat(40));
    expect(() => openSqliteStore(bad)).toThrow(StoreError);
    expect(() => openSqliteStore(bad)).toThrow(`${bad} is not a Shop store`);
  });
});
