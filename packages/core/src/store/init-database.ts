import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import type { Project } from '../project/project.js';
import { checkProjectStore } from '../project/project-identity.js';
import { checkDatabaseUrl, databaseUrlFile, storeLocation } from './database-url.js';
import { openPostgres } from './open-store.js';

/**
 * shop init --database URL: the URL checked (UsageError when it is not a PostgreSQL one),
 * the database reached and brought to Shop's schema (a StoreError naming host:port when it
 * cannot be), found to be this project's store (a ConflictError when another project's runs
 * are there: keeping its URL would leave every later command refused), and only then kept in
 * `.shop/database.url`, readable by its owner alone (it may hold a password). Returns the file written.
 */
export async function initDatabase(
  project: Pick<Project, 'home' | 'root'>,
  url: string,
  env: NodeJS.ProcessEnv,
): Promise<string> {
  const checked = checkDatabaseUrl(url.trim(), '--database');
  const store = await openPostgres({ kind: 'postgres', url: checked, source: 'the --database URL' }, env, {
    poolSize: 1,
  });
  try {
    await checkProjectStore(store, project);
  } finally {
    await store.close();
  }
  mkdirSync(project.home, { recursive: true, mode: 0o700 });
  const file = databaseUrlFile(project);
  writeFileSync(file, `${checked}\n`, { mode: 0o600 });
  chmodSync(file, 0o600); // an existing file keeps its mode on write
  return file;
}

/** Where the project's store is, for a person: the SQLite file, or host:port/database and where its URL comes from. */
export async function describeStore(
  project: Pick<Project, 'home' | 'dbFile'>,
  env: NodeJS.ProcessEnv,
): Promise<string> {
  const where = storeLocation(project, env);
  if (where.kind === 'sqlite') return where.file;
  const { pgWhere } = await import('./pg/pg-errors.js');
  return `PostgreSQL ${pgWhere(where.url)} (from ${where.source})`;
}
