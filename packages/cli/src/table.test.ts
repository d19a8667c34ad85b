import { describe, expect, it } from 'vitest';
import { cost, cut, table } from './table.js';

const header = ['ID', 'SPEC', 'STATUS', 'QUESTION'];
const rows = [
  ['12', 'feature', 'waiting_human', 'Which database should the login page use, and who owns its schema?'],
  ['3', 'bugfix-with-a-long-name', 'completed', '-'],
];

describe('table', () => {
  it('pads columns to their widest cell and leaves lines whole without a width', () => {
    const lines = table(header, rows);
    expect(lines[0]).toBe('ID  SPEC                     STATUS         QUESTION');
    expect(lines[1]).toBe(`12  feature                  waiting_human  ${rows[0][3]}`);
    expect(lines[2]).toBe('3   bugfix-with-a-long-name  completed      -');
  });

  it('cuts the free-text column with … to fit a width, never wrapping', () => {
    const lines = table(header, rows, { width: 60 });
    expect(lines.every((l) => l.length <= 60)).toBe(true);
    expect(lines[1]).toBe('12  feature                  waiting_human  Which database…');
    expect(lines[2]).toBe('3   bugfix-with-a-long-name  completed      -');
  });

  it('cuts the next listed column when the first is at its narrowest, then the line itself', () => {
    const lines = table(header, rows, { width: 40, shrink: [3, 1] });
    expect(lines.every((l) => l.length <= 40)).toBe(true);
    expect(lines[1]).toBe('12  feature      waiting_human  Which d…');
    expect(lines[2]).toBe('3   bugfix-wit…  completed      -');
    expect(table(header, rows, { width: 20 }).every((l) => l.length <= 20 && l.endsWith('…'))).toBe(true);
  });

  it('measures cells in terminal columns: wide characters pad and cut as two, marks as none', () => {
    const wide = table(
      ['ID', 'Q', 'NEXT'],
      [
        ['1', 'デプロイ', 'a'],
        ['2', 'Cafe\u0301', 'b'],
        ['3', '👍🏽', 'c'],
      ],
    );
    expect(wide).toEqual(['ID  Q         NEXT', '1   デプロイ  a', '2   Cafe\u0301      b', '3   👍🏽        c']);
    expect(table(['Q'], [['デプロイしますか？ ok']], { width: 10 })).toEqual(['Q', 'デプロイ…']);
  });

  it('styles cells after layout, so colour codes do not skew the columns', () => {
    const red = (col: number, text: string) => (col === 2 ? `<${text}>` : text);
    const lines = table(header, rows, { style: red });
    expect(lines[0]).toBe('ID  SPEC                     STATUS         QUESTION');
    expect(lines[2]).toBe('3   bugfix-with-a-long-name  <completed>      -');
  });
});

describe('cut and cost', () => {
  it('cuts with an ellipsis only when needed', () => {
    expect(cut('abcdef', 6)).toBe('abcdef');
    expect(cut('abcdefg', 6)).toBe('abcde…');
    expect(cut('ab defg', 4)).toBe('ab…');
  });

  it('shows costs to the cent', () => {
    expect([cost(0), cost(0.004), cost(0.1234), cost(12)]).toEqual(['-', '<$0.01', '$0.12', '$12.00']);
  });
});
