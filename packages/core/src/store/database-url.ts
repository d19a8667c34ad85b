import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../errors.js';
import type { Project } from '../project/project.js';

/** Which store a project uses: its SQLite file, or a PostgreSQL database (and where its URL came from). */
export type StoreLocation = { kind: 'sqlite'; file: string } | { kind: 'postgres'; url: string; source: string };

/** Where `shop init --database URL` keeps the URL (private: it may hold a password). */
export const databaseUrlFile = (project: Pick<Project, 'home'>): string => join(project.home, 'database.url');

const MAX_URL = 2048;

/**
 * PostgreSQL when SHOP_DATABASE_URL is set or the project has a database.url; else the SQLite
 * file, the zero-setup default. The variable wins over the file: one machine may point
 * elsewhere without editing the project.
 */
export function storeLocation(project: Pick<Project, 'home' | 'dbFile'>, env: NodeJS.ProcessEnv): StoreLocation {
  const fromEnv = env.SHOP_DATABASE_URL?.trim();
  if (fromEnv)
    return { kind: 'postgres', url: checkDatabaseUrl(fromEnv, 'SHOP_DATABASE_URL'), source: 'SHOP_DATABASE_URL' };
  const file = databaseUrlFile(project);
  if (existsSync(file)) {
    const text = readFileSync(file, 'utf8')
      .slice(0, MAX_URL + 1)
      .trim();
    return { kind: 'postgres', url: checkDatabaseUrl(text, file), source: file };
  }
  return { kind: 'sqlite', file: project.dbFile };
}

/**
 * A PostgreSQL URL as Shop takes it (postgres[ql]://user:password@host:port/database), or a
 * UsageError naming `source` and the expected shape. Never echoes the URL: it may hold a password.
 */
export function checkDatabaseUrl(text: string, source: string): string {
  const shape = 'postgres://USER:PASSWORD@HOST:5432/DATABASE';
  if (!text) throw new UsageError(`${source} is empty; give a PostgreSQL URL like ${shape}`);
  if (text.length > MAX_URL)
    throw new UsageError(`${source} is longer than ${MAX_URL} characters; give a PostgreSQL URL like ${shape}`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`${source} is not a URL; give a PostgreSQL URL like ${shape}`);
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new UsageError(`${source} is not a PostgreSQL URL (it starts ${url.protocol}); give a URL like ${shape}`);
  }
  if (!url.hostname && !url.searchParams.get('host'))
    throw new UsageError(`${source} names no host; give a PostgreSQL URL like ${shape}`);
  if (url.pathname.length <= 1)
    throw new UsageError(`${source} names no database; give a PostgreSQL URL like ${shape}`);
  if (/[\s\u0000-\u001f]/.test(text))
    throw new UsageError(`${source} holds spaces or control characters; give a PostgreSQL URL like ${shape}`);
  return text;
}
