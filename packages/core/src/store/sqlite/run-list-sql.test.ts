import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { runListShape } from '../run-list.js';
import type { RunFilter } from '../store.js';
import { migrate } from './migrate.js';
import { runListSql } from './run-list-sql.js';

/** How SQLite reads listRuns' runs for a filter (its query plan, one line per step). */
function plan(filter: RunFilter): string[] {
  const db = new Database(':memory:');
  try {
    migrate(db);
    const q = runListSql(runListShape(filter));
    return (
      db.prepare(`EXPLAIN QUERY PLAN SELECT * FROM runs${q.where}${q.order}${q.limit}`).all(...q.params) as {
        detail: string;
      }[]
    ).map((r) => r.detail);
  } finally {
    db.close();
  }
}

describe("SQLite's runs list", () => {
  it('reads by an index for each filter, and a page newest first without sorting the table', () => {
    expect(plan({ changedSince: 5 })).toContainEqual(expect.stringMatching(/USING INDEX runs_updated/));
    expect(plan({ status: 'running' })).toEqual([expect.stringMatching(/USING INDEX runs_status/)]);
    expect(plan({ held: true })).toEqual([expect.stringMatching(/USING INDEX runs_held/)]);
    expect(plan({ limit: 50 })).toEqual(['SCAN runs']);
  });

  it('puts the parameters in the order of their placeholders, and the limit as a whole number', () => {
    const q = runListSql(runListShape({ changedSince: 7, status: 'failed', held: true, limit: 2.5 }));
    expect(q.where).toBe(' WHERE status = ? AND held IS NOT NULL AND updated_at > ?');
    expect(q.params).toEqual(['failed', 7]);
    expect(q.limit).toBe(' LIMIT 2');
  });
});
