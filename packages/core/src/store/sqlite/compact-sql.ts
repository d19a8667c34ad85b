/**
 * SQL as SQLite keeps it: without its comments and with each run of whitespace one space
 * (outside quoted strings and names). SQLite stores a CREATE statement's text as written, in
 * every store; schema.sql's comments are for its readers, and here cost a new store pages.
 */
export function compactSql(sql: string): string {
  let out = '';
  let space = false;
  for (let i = 0; i < sql.length;) {
    const c = sql[i]!;
    if (c === "'" || c === '"') {
      // A quoted string or name, kept whole; a doubled quote is one quote inside it.
      let end = i + 1;
      for (;;) {
        end = sql.indexOf(c, end);
        if (end === -1) throw new Error(`compactSql: an unterminated ${c} at ${i}`);
        if (sql[end + 1] !== c) break;
        end += 2;
      }
      out += (space && out ? ' ' : '') + sql.slice(i, end + 1);
      space = false;
      i = end + 1;
    } else if (c === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i);
      i = end === -1 ? sql.length : end;
      space = true;
    } else if (c === '/' && sql[i + 1] === '*') {
      const end = sql.indexOf('*/', i + 2);
      if (end === -1) throw new Error(`compactSql: an unterminated /* at ${i}`);
      i = end + 2;
      space = true;
    } else if (/\s/.test(c)) {
      space = true;
      i++;
    } else {
      out += (space && out ? ' ' : '') + c;
      space = false;
      i++;
    }
  }
  return out;
}
