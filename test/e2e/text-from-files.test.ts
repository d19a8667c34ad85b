import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lines, makeProject, runId, shopBin } from './harness.js';

/**
 * A prompt or an answer longer than a command line takes (one argument: 128 KiB on Linux)
 * comes from a file or stdin, up to the 16 MiB a value crossing into Lua may hold.
 */
const LEN = 'function workflow(prompt)\n  return #prompt\nend\n';
const big = 'a'.repeat(200_000);

describe('shop run: the prompt from a file or stdin', () => {
  it('a 200 KB prompt cannot be an argument; --prompt-file F and - (stdin) take it whole', () => {
    const p = makeProject();
    p.write('workflows/len.lua', LEN);
    const asWords = spawnSync(process.execPath, [shopBin, 'run', 'len', big], { cwd: p.dir, env: p.env });
    expect((asWords.error as NodeJS.ErrnoException | undefined)?.code).toBe('E2BIG');

    p.write('prompt.txt', `${big}\n`);
    const fromFile = p.shop(['run', 'len', '--prompt-file', 'prompt.txt']);
    expect(fromFile.code).toBe(0);
    expect(lines(fromFile.stdout).at(-1)).toBe(`run ${runId(fromFile)} completed: 200000`);
    expect(p.status(runId(fromFile)).prompt).toBe(big);

    const fromStdin = p.shop(['run', 'len', '-'], { input: 'fix the login bug\n' });
    expect(fromStdin.code).toBe(0);
    expect(p.status(runId(fromStdin)).prompt).toBe('fix the login bug');
    expect(p.status(runId(p.shop(['run', 'len', '--prompt-file', '-'], { input: big })))).toMatchObject({
      prompt: big,
      result: 200000,
    });
  });

  it('over 16 MiB, words and a file both, or a file not there: one line, exit 2, no run started', () => {
    const p = makeProject();
    p.write('workflows/len.lua', LEN);
    writeFileSync(join(p.dir, 'huge.txt'), Buffer.alloc(16 * 1024 * 1024 + 1, 'a'));
    const refusals = [
      [
        p.shop(['run', 'len', '--prompt-file', 'huge.txt']),
        'shop: --prompt-file "huge.txt" holds more than 16 MiB, the most the prompt may hold (it is handed to the workflow\'s Lua); give less',
      ],
      [
        p.shop(['run', 'len', '-'], { input: 'a'.repeat(16 * 1024 * 1024 + 1) }),
        "shop: stdin holds more than 16 MiB, the most the prompt may hold (it is handed to the workflow's Lua); give less",
      ],
      [
        p.shop(['run', 'len', 'fix', '--prompt-file', 'huge.txt']),
        'shop: give the prompt as words, as --prompt-file F or as - (stdin), not both; usage: shop run <workflow> [prompt… | - | --prompt-file F]',
      ],
      [
        p.shop(['run', 'len', '--prompt-file', 'missing.txt']),
        'shop: --prompt-file "missing.txt": cannot read the prompt (no such file)',
      ],
    ] as const;
    for (const [r, line] of refusals)
      expect({ code: r.code, stderr: r.stderr, stdout: r.stdout }).toEqual({
        code: 2,
        stderr: `${line}\n`,
        stdout: '',
      });
    expect(p.list()).toEqual([]);
  });
});

describe('answers from a file or stdin: --message-file F', () => {
  it('reject, answer and approve take their words from a file or stdin', () => {
    const p = makeProject();
    // A rejected pause hands the workflow its reason: the result is how long it is, and how it starts.
    p.write(
      'workflows/gate.lua',
      'function workflow(prompt)\n  local ok = pause("Ship it?")\n  return ok.continue and "shipped" or (#ok.reason .. " " .. ok.reason:sub(1, 8))\nend\n',
    );
    const long = `not yet: ${'the tests are red. '.repeat(10_000)}`.trimEnd();
    p.write('why.txt', `${long}\n`);
    const gate = runId(p.shop(['run', 'gate']));
    expect(p.shop(['reject', `${gate}.1`, '--message-file', 'why.txt']).code).toBe(0);
    expect(p.status(gate).result).toBe(`${long.length} not yet:`);

    p.scenario({
      agents: {
        coder: [
          { status: 'NEEDS_HUMAN', reason: 'Which DB?' },
          { status: 'DONE', summary: 'done' },
        ],
      },
    });
    const asked = runId(p.shop(['run', 'bugfix', 'x']));
    expect(p.shop(['answer', `${asked}.1`, '--message-file', '-'], { input: 'postgres, version 16\n' }).code).toBe(0);
    // The answer went back to the coder's own session.
    expect(p.invocations().find((i) => i.agent === 'coder' && i.resumed)!.prompt).toContain('postgres, version 16');

    const again = runId(p.shop(['run', 'gate']));
    const both = p.shop(['approve', `${again}.1`, '-m', 'ok', '--message-file', 'why.txt']);
    expect(both).toMatchObject({ code: 2, stdout: '' });
    expect(both.stderr).toMatch(
      /^shop: give your words once — on the command line or with --message-file F — not both; usage: shop approve/,
    );
    expect(p.shop(['approve', `${again}.1`, '--message-file', '-'], { input: 'looks good\n' }).code).toBe(0);
    expect(p.status(again).status).toBe('completed');
  });
});
