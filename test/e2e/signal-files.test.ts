import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  killLeftovers,
  lines,
  makeProject,
  runId,
  startWorker,
  stopWorker,
  until,
  type Project,
  type Result,
} from './harness.js';

/**
 * A signal file is whatever the agent leaves at SHOP_SIGNAL_FILE: a FIFO, a link to
 * /dev/zero, megabytes, 100,000 levels of nesting. Each fails the call in one line naming
 * the file and what is wrong; nothing blocks, aborts or swells the store.
 */

/** An agent (a `command:` agent) that runs `script` with node, SHOP_SIGNAL_FILE in its env. */
function scriptedAgent(p: Project, name: string, script: string) {
  p.write(`agents/${name}.md`, `---\ncommand: ${JSON.stringify([process.execPath, '-e', script])}\n---\n${name}.\n`);
  p.write(`workflows/${name}.lua`, `function workflow(prompt)\n  return run("${name}", "go").status\nend\n`);
}

/** `shop run <name>`: failed (exit 1) with one line on stderr, naming the signal file. */
function failsInOneLine(p: Project, name: string): { id: number; line: string } {
  const r: Result = p.shop(['run', name]);
  // spawnSync's 60 s bound: a hang shows as code null, not as a stuck test.
  expect(r.code, r.stderr).toBe(1);
  const err = lines(r.stderr);
  expect(err, r.stderr).toHaveLength(1);
  expect(r.stderr).not.toMatch(/^\s+at |Maximum call stack|bad_alloc/m);
  const id = runId(r);
  expect(err[0]).toMatch(
    new RegExp(
      `^shop: run ${id} failed: agent ${name} wrote an invalid signal .*/\\.shop/signals/${id}\\.1\\.${name}\\.[0-9a-f]{24}\\.json: `,
    ),
  );
  expect(p.status(id)).toMatchObject({ status: 'failed' });
  return { id, line: err[0] };
}

const storeBytes = (p: Project) =>
  ['shop.db', 'shop.db-wal'].reduce((n, f) => {
    try {
      return n + statSync(join(p.dir, '.shop', f)).size;
    } catch {
      return n;
    }
  }, 0);

describe('signal files are read safely', () => {
  it('a FIFO at the signal path fails the call at once instead of blocking forever', () => {
    const p = makeProject();
    scriptedAgent(p, 'piper', `require('child_process').execFileSync('mkfifo', [process.env.SHOP_SIGNAL_FILE])`);
    const { line } = failsInOneLine(p, 'piper');
    expect(line).toMatch(/: is a FIFO \(named pipe\); it must be a regular file$/);
  });

  it('a symbolic link to /dev/zero is never followed', () => {
    const p = makeProject();
    scriptedAgent(p, 'zeroes', `require('fs').symlinkSync('/dev/zero', process.env.SHOP_SIGNAL_FILE)`);
    const { line } = failsInOneLine(p, 'zeroes');
    expect(line).toMatch(/: is a symbolic link; it must be a regular file$/);
  });

  it('a 2 MB signal is refused by its size, naming the cap, and the store does not grow by it', () => {
    const p = makeProject();
    const before = storeBytes(p);
    scriptedAgent(
      p,
      'talker',
      `require('fs').writeFileSync(process.env.SHOP_SIGNAL_FILE, JSON.stringify({ status: 'DONE', summary: 'x'.repeat(2 * 1024 * 1024) }))`,
    );
    const { line } = failsInOneLine(p, 'talker');
    expect(line).toMatch(/: is larger than 1 MiB \(the cap for a file an agent writes\)$/);
    expect(storeBytes(p) - before).toBeLessThan(512 * 1024);
  });

  it('a signal nested 100,000 levels deep fails in one line, not with a stack overflow', () => {
    const p = makeProject();
    const n = 100_000;
    scriptedAgent(
      p,
      'nester',
      `require('fs').writeFileSync(process.env.SHOP_SIGNAL_FILE, '{"status":"DONE","x":' + '['.repeat(${n}) + ']'.repeat(${n}) + '}')`,
    );
    const { id, line } = failsInOneLine(p, 'nester');
    expect(line).toMatch(/: is nested more than 100 levels deep$/);
    // Resuming re-runs the call, which fails the same way: one line again, never a crash.
    const again = p.shop(['resume', String(id)]);
    expect(again.code).toBe(1);
    expect(lines(again.stderr)).toEqual([expect.stringMatching(/: is nested more than 100 levels deep$/)]);
  });
});

describe('shop report and answer files are bounded too', () => {
  it('shop report refuses a report over 1 MiB and the fields of an answer', () => {
    const p = makeProject();
    const file = join(p.dir, '.shop', 'signals', '9.1.coder.0123456789abcdef01234567.json');
    const env = { SHOP_SIGNAL_FILE: file };
    // One argument holds at most 128 KB (Linux): nine of 120 KB pass 1 MiB together.
    const fields = Array.from({ length: 9 }, (_, i) => ['--field', `n${i}=${'x'.repeat(120 * 1024)}`]).flat();
    const big = p.shop(['report', 'DONE', ...fields], { env });
    expect(big.code).toBe(2);
    expect(lines(big.stderr)).toEqual([
      expect.stringMatching(/^shop: the report is 1\.1 MB, more than the 1 MiB a signal may hold; /),
    ]);
    for (const field of ['verdict=approved', 'responder=alice (human)', 'channel=cli']) {
      const r = p.shop(['report', 'APPROVED', '--field', field], { env });
      expect(r.code, field).toBe(2);
      expect(lines(r.stderr), field).toEqual([
        `shop: --field ${field.split('=')[0]}: verdict, responder, channel are a person's answer, never an agent's report; report your own status and let the person answer`,
      ]);
    }
  });

  it("shop report: a --field named like the report's own parts is refused, never overriding them", () => {
    const p = makeProject();
    const file = join(p.dir, '.shop', 'signals', '9.1.coder.0123456789abcdef01234567.json');
    const env = { SHOP_SIGNAL_FILE: file };
    const cases: [string, string][] = [
      ['status=FAILED', 'the STATUS argument'],
      ['summary=x', '--summary'],
      ['reason=y', '--reason'],
      ['awaiting=work', '--awaiting'],
    ];
    for (const [field, own] of cases) {
      const r = p.shop(['report', 'DONE', '--summary', 'real', '--field', field], { env });
      expect(r.code, field).toBe(2);
      expect(lines(r.stderr), field).toEqual([
        `shop: --field ${field.split('=')[0]}: give it as ${own}, once (shop report --help)`,
      ]);
      expect(existsSync(file), field).toBe(false);
    }
    expect(p.shop(['report', 'DONE', '--summary', 'real', '--field', 'pr=#7'], { env }).code).toBe(0);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ status: 'DONE', summary: 'real', pr: '#7' });
  });

  it('shop report to a SHOP_SIGNAL_FILE that is a directory: one line, exit 2, no temp file left', () => {
    const p = makeProject();
    const dir = join(p.dir, 'sigdir');
    mkdirSync(dir);
    const r = p.shop(['report', 'DONE'], { env: { SHOP_SIGNAL_FILE: dir } });
    expect(r.code).toBe(2);
    expect(lines(r.stderr)).toEqual([
      `shop: could not write the signal file ${dir}: it is a folder (EISDIR); SHOP_SIGNAL_FILE must name a file Shop gave this step`,
    ]);
    expect(readdirSync(p.dir).filter((f) => f.startsWith('sigdir.'))).toEqual([]);
  });

  it('shop signal --answers-file reads at most 1 MiB (/dev/zero, a 2 MB file) and at most 100 levels', () => {
    const p = makeProject();
    p.write(
      'workflows/form.lua',
      'function workflow(prompt)\n  return pause{ message = "Budget?", decisions = { { id = "cap", type = "number", prompt = "Cap?" } } }.answers.cap\nend\n',
    );
    const id = runId(p.shop(['run', 'form']));
    const zero = p.shop(['signal', String(id), '--answers-file', '/dev/zero']);
    expect(zero.code).toBe(2);
    expect(lines(zero.stderr)).toEqual(['shop: --answers-file "/dev/zero" is larger than 1 MiB; answers are short']);
    writeFileSync(join(p.dir, 'big.json'), `{"cap": 1, "pad": "${'x'.repeat(2 * 1024 * 1024)}"}`);
    expect(p.shop(['signal', String(id), '--response-file', join(p.dir, 'big.json')]).code).toBe(2);
    writeFileSync(join(p.dir, 'deep.json'), `{"cap": ${'['.repeat(100_000)}${']'.repeat(100_000)}}`);
    const deep = p.shop(['signal', String(id), '--answers-file', join(p.dir, 'deep.json')]);
    expect(deep.code).toBe(2);
    expect(lines(deep.stderr)).toEqual(['shop: --answers-file is nested more than 100 levels deep']);
    expect(p.status(id)).toMatchObject({ status: 'waiting_human' });
    expect(p.shop(['signal', String(id), '--answers', '{"cap": 5}']).code).toBe(0);
  });
});

describe('under shop watch', () => {
  afterEach(killLeftovers);

  it('an agent that leaves a FIFO fails its run in the worker, which goes on and stops on SIGTERM', async () => {
    const p = makeProject();
    // First round: ask a person. Second (after the answer): leave a FIFO at the signal path.
    const script = [
      "const fs = require('fs'); const marker = process.env.SHOP_SIGNAL_FILE.replace(/[^/]*$/, 'asked-' + process.env.SHOP_RUN_ID);",
      "if (!fs.existsSync(marker)) { fs.writeFileSync(marker, ''); fs.writeFileSync(process.env.SHOP_SIGNAL_FILE, JSON.stringify({ status: 'NEEDS_HUMAN', reason: 'which?' })); }",
      "else require('child_process').execFileSync('mkfifo', [process.env.SHOP_SIGNAL_FILE]);",
    ].join('\n');
    scriptedAgent(p, 'piper', script);
    const id = runId(p.shop(['run', 'piper']));
    expect(p.status(id)).toMatchObject({ status: 'waiting_human' });
    const w = await startWorker(p);
    await until('the run to be held', () =>
      w.output().includes(`run ${id} (piper): held here while it waits for a person`),
    );
    expect(p.shop(['answer', String(id), 'this one']).code).toBe(0);
    await until('the run to fail', () =>
      w.output().includes(`run ${id} (piper) failed: agent piper wrote an invalid signal `),
    );
    expect(w.output()).toMatch(/: is a FIFO \(named pipe\); it must be a regular file\n/);
    expect(p.status(id)).toMatchObject({ status: 'failed' });
    expect(await stopWorker(w)).toBe(0);
  });
});
