import { readFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { shippedFile } from '../../project/shipped-file.js';
import { compactSql } from './compact-sql.js';

describe('compactSql', () => {
  it('drops comments and runs of whitespace, never inside a quoted string or name', () => {
    const sql = `CREATE TABLE t (  -- the owner's table
  a   TEXT CHECK (a IN ('x  --y', 'it''s')), /* two
  lines */ "b  c" INTEGER -- last
);\n\n`;
    expect(compactSql(sql)).toBe(`CREATE TABLE t ( a TEXT CHECK (a IN ('x  --y', 'it''s')), "b  c" INTEGER );`);
  });

  it('refuses an unterminated string rather than guess', () => {
    expect(() => compactSql(`SELECT 'open`)).toThrow(/unterminated '/);
  });

  it('makes the same schema from schema.sql as the file does, in fewer bytes', () => {
    const text = readFileSync(shippedFile('schema.sql', import.meta.url), 'utf8');
    const schemaOf = (sql: string) => {
      const db = new Database(':memory:');
      db.exec(sql);
      const objects = db.prepare(`SELECT type, name, tbl_name FROM sqlite_schema ORDER BY name`).all();
      const columns = db
        .prepare(
          `SELECT m.name AS t, c.* FROM sqlite_schema m, pragma_table_xinfo(m.name) c WHERE m.type = 'table' ORDER BY m.name, c.cid`,
        )
        .all();
      const bytes = (db.prepare(`SELECT sum(length(sql)) AS n FROM sqlite_schema`).get() as { n: number }).n;
      db.close();
      return { objects, columns, bytes };
    };
    const compact = schemaOf(compactSql(text));
    const asWritten = schemaOf(text);
    expect(compact.objects).toEqual(asWritten.objects);
    expect(compact.columns).toEqual(asWritten.columns);
    expect(compact.bytes).toBeLessThan(asWritten.bytes * 0.6);
  });
});
