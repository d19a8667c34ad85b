import Database from 'better-sqlite3';
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { commands } from '../../packages/cli/src/registry.js';
import { LogJsonSchema, RunDetailJsonSchema, RunJsonSchema } from '../../packages/core/src/operations/shapes.js';
import { lines, makeProject, repoRoot, runId, shopBin, type Project, type Result } from './harness.js';
import { tempDir } from '../../packages/core/src/testing/temp-dir.js';

/** The conventions of gh and the Temporal CLI, through the built binary (issue 10). */

/** One line on stderr, nothing on stdout, the exit code; returns the line. */
function refused(r: Result, code: number): string {
  expect(r.code, r.stderr).toBe(code);
  expect(r.stdout).toBe('');
  expect(lines(r.stderr)).toHaveLength(1);
  return lines(r.stderr)[0];
}

const emptyDir = () => realpathSync(tempDir('shop-empty-'));
/** `shop …` in a folder that is no Shop project. */
function outside(dir: string, args: string[]): Result {
  const env = { ...process.env, SHOP_HOME: '', SHOP_DEBUG: '' };
  const r = spawnSync(process.execPath, [shopBin, ...args], { cwd: dir, env, encoding: 'utf8', input: '' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

let p: Project;
beforeAll(() => {
  p = makeProject();
  p.write('workflows/quick.lua', 'function workflow(prompt)\n  return run("coder", prompt).status\nend\n');
  p.write('workflows/ask.lua', 'function workflow(prompt)\n  return run("coder", prompt).summary\nend\n');
  p.write('workflows/gate.lua', 'function workflow(prompt)\n  return pause("Ship it?").continue\nend\n');
});

describe('shop --version', () => {
  it('prints "shop <version>" from packages/cli/package.json, for --version, -V and shop version, creating nothing', () => {
    const { version } = JSON.parse(readFileSync(join(repoRoot, 'packages', 'cli', 'package.json'), 'utf8')) as {
      version: string;
    };
    const dir = emptyDir();
    for (const flag of ['--version', '-V', 'version']) {
      const r = outside(dir, [flag]);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(`shop ${version}\n`);
      expect(r.stderr).toBe('');
    }
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a checkout not built yet (no npm install) says so in one line, exit 1, no stack', () => {
    const checkout = emptyDir();
    mkdirSync(join(checkout, 'packages', 'cli', 'bin'), { recursive: true });
    for (const f of ['shop', 'package.json'])
      copyFileSync(join(repoRoot, 'packages', 'cli', 'bin', f), join(checkout, 'packages', 'cli', 'bin', f));
    const r = spawnSync(process.execPath, [join(checkout, 'packages', 'cli', 'bin', 'shop'), '--version'], {
      cwd: emptyDir(),
      env: { ...process.env, SHOP_DEBUG: '' },
      encoding: 'utf8',
    });
    expect(refused({ code: r.status, stdout: r.stdout, stderr: r.stderr }, 1)).toBe(
      `shop: Shop is not built or not installed completely (Cannot find module '${join(checkout, 'packages', 'cli', 'dist', 'bundle', 'shop.cjs')}'); run npm install in ${checkout}`,
    );
  });
});

describe('help from the registry', () => {
  it('shop <cmd> --help and shop help <cmd> print usage, summary and every flag with its description', () => {
    for (const [name, spec] of Object.entries(commands)) {
      const r = p.shop([name, '--help']);
      expect(r.code, name).toBe(0);
      expect(r.stdout, name).toContain(`${spec.summary}\n\nUsage:\n  ${spec.usage}\n\nFlags:\n`);
      for (const [flag, f] of Object.entries(spec.options)) {
        expect(f.description.length, `${name} --${flag} has a description`).toBeGreaterThan(10);
        const flagBlock = r.stdout.split('\nFlags:\n')[1].split('\n\n')[0];
        const line = lines(flagBlock).find((l) => l.includes(`--${flag}${f.value ? ` ${f.value}` : ''} `));
        expect(line, `shop ${name} --help shows --${flag}`).toBeDefined();
        expect(line).toContain(f.description.split(' ').slice(0, 4).join(' '));
      }
      expect(r.stdout).toMatch(/^ {2}-h, --help +show this help$/m);
      expect(p.shop(['help', name]).stdout, `shop help ${name}`).toBe(r.stdout);
    }
  });

  it('describes run --wait and --worktree', () => {
    const out = p.shop(['run', '-h']).stdout;
    expect(out).toMatch(/^ {6}--wait +keep this process alive and resume in place when the answer arrives/m);
    expect(out).toMatch(/^ {6}--worktree +run in \.shop\/worktrees\/run-<id> on branch shop\/run-<id>/m);
  });

  it('the global help lists every command with its summary, short enough to read', () => {
    const r = p.shop(['--help']);
    expect(r.code).toBe(0);
    for (const [name, spec] of Object.entries(commands))
      expect(r.stdout).toMatch(new RegExp(`^ {2}${name} +${spec.summary.replace(/[()`.?*+[\]]/g, '\\$&')}$`, 'm'));
    expect(lines(r.stdout).length).toBeLessThanOrEqual(45);
    expect(p.shop(['help']).stdout).toBe(r.stdout);
  });

  it('shop help with an unknown command suggests one, or points to the list; exit 2', () => {
    expect(refused(p.shop(['help', 'stauts']), 2)).toBe(
      'shop: unknown command "stauts"; did you mean "status"? (shop --help lists them)',
    );
    expect(refused(p.shop(['help', 'nope']), 2)).toBe('shop: unknown command "nope" (shop --help lists them)');
  });
});

describe('did you mean', () => {
  it('an unknown command names the closest one', () => {
    expect(refused(p.shop(['lst']), 2)).toBe(
      'shop: unknown command "lst"; did you mean "list"? (shop --help lists them)',
    );
    expect(refused(p.shop(['aprove', '1']), 2)).toContain('did you mean "approve"?');
    expect(refused(p.shop(['frobnicate']), 2)).toBe('shop: unknown command "frobnicate" (shop --help lists them)');
  });

  it('an unknown flag is named, with the flag meant', () => {
    expect(refused(p.shop(['list', '--stauts', 'x']), 2)).toBe(
      'shop: unknown flag "--stauts" for shop list; did you mean "--status"? (shop list --help lists them)',
    );
    expect(refused(p.shop(['run', 'quick', '--wiat']), 2)).toContain('did you mean "--wait"?');
    expect(refused(p.shop(['list', '--bogus']), 2)).toBe(
      'shop: unknown flag "--bogus" for shop list (shop list --help lists them)',
    );
  });

  it('a mistyped --status value is named, with the status meant', () => {
    expect(refused(p.shop(['list', '--status', 'complted']), 2)).toContain(
      '--status "complted" is not a run status; did you mean "completed"?',
    );
  });
});

describe('positional arguments', () => {
  it('a command refuses more than it takes, naming the first extra and the usage', () => {
    expect(refused(p.shop(['status', '1', 'extra']), 2)).toBe(
      'shop: unexpected argument "extra" (shop status); usage: shop status <id> [--limit N] [--json | --aah [--call K]]',
    );
    for (const [name, spec] of Object.entries(commands)) {
      if (spec.maxArgs === Infinity) continue;
      const args = [...Array.from({ length: spec.maxArgs }, () => '1'), 'surplus'];
      expect(refused(p.shop([name, ...args]), 2), name).toMatch(
        new RegExp(`^shop: unexpected argument "surplus" \\(shop ${name}\\).*; usage: shop ${name}`),
      );
    }
  });

  it('a value typed at any length is quoted capped: the error stays one short line that says how long it was', () => {
    const long = 'x'.repeat(5000);
    const cases: [string[], number][] = [
      [['status', long], 2],
      [['status', '1', long], 2],
      [['list', '--limit', long], 2],
      [['list', '--status', long], 2],
      [[long], 2],
      [['list', `--${long}`], 2],
      [['watch', long], 2],
      [['replay', long], 2],
      [['run', long], 5],
      [['signal', '1', '--answers-file', long], 2],
      [['replay', '--workflow', long], 2],
    ];
    for (const [args, code] of cases) {
      const line = refused(p.shop(args), code);
      expect(line.length, args[0]).toBeLessThan(400);
      expect(line, args[0]).toMatch(/… \(5,0\d\d characters in all\)"/);
    }
  });

  it('free text stays free: a prompt, an answer, feedback, several ids', () => {
    p.scenario({
      agents: {
        coder: [
          { status: 'NEEDS_HUMAN', reason: 'Which database?' },
          { status: 'DONE', summary: 'ok' },
        ],
      },
    });
    const run = p.shop(['run', 'ask', 'add', 'a', 'login', 'page']);
    expect(run.code, run.stderr).toBe(3);
    const id = runId(run);
    expect(p.status(id).prompt).toBe('add a login page');
    const answer = p.shop(['answer', String(id), 'use', 'postgres', 'please']);
    expect(answer.code, answer.stderr).toBe(0);
    expect(p.invocations().at(-1)!.prompt).toContain('use postgres please');
    expect(p.shop(['replay', String(id), String(id)]).code).toBe(0);
  });
});

describe('no Shop project here', () => {
  it('read and answering commands say so, exit 2 and create nothing', () => {
    const dir = emptyDir();
    for (const args of [
      ['list'],
      ['list', '--json'],
      ['inbox'],
      ['status', '1'],
      ['log', '1'],
      ['replay'],
      ['resume', '1'],
      ['stop', '1'],
      ['approve', '1'],
      ['continue', '1'],
      ['watch'],
      ['tui'],
      ['run', 'feature'],
    ]) {
      expect(refused(outside(dir, args), 2), args.join(' ')).toBe('shop: no Shop project here (run shop init)');
    }
    expect(readdirSync(dir)).toEqual([]);
  });

  it('shop init makes one, and then the same commands work', () => {
    const dir = emptyDir();
    expect(outside(dir, ['init']).code).toBe(0);
    const r = outside(dir, ['list']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('no runs yet');
  });
});

describe('times', () => {
  const KOLKATA = { TZ: 'Asia/Kolkata' };
  const at = (iso: string) => {
    const d = new Date(Date.parse(iso) + 5.5 * 3600_000);
    return `${d.toISOString().slice(0, 10)} ${d.toISOString().slice(11, 19)} +05:30`;
  };

  it('shop log and shop status show local times with their offset; --json times are ISO 8601 with an offset', () => {
    p.scenario({});
    const id = runId(p.shop(['run', 'quick', 'x'], { env: KOLKATA }));
    const json = LogJsonSchema.parse(JSON.parse(p.shop(['log', String(id), '--json'], { env: KOLKATA }).stdout));
    const text = lines(p.shop(['log', String(id)], { env: KOLKATA }).stdout);
    expect(text).toHaveLength(json.events.length);
    json.events.forEach((e, i) => expect(text[i].startsWith(`${at(e.at)}  ${e.type}`), text[i]).toBe(true));
    const started = lines(p.shop(['status', String(id)], { env: KOLKATA }).stdout).find((l) => l.startsWith('Cost: '));
    expect(started).toMatch(/^Cost: \S+ +Started: \d{4}-\d\d-\d\d \d\d:\d\d:\d\d \+05:30 \(\d+s ago\)$/);
    expect(started).toContain(`Started: ${at(json.run.created_at)} (`);
  });

  it('every time in --json is an ISO 8601 string with an offset, never epoch or a local string', () => {
    p.scenario({ agents: { coder: [{ status: 'NEEDS_HUMAN', reason: 'When?' }] } });
    const id = runId(p.shop(['run', 'ask', 'y']));
    const docs = [
      RunJsonSchema.array().parse(JSON.parse(p.shop(['list', '--json'], { env: KOLKATA }).stdout)),
      RunDetailJsonSchema.parse(JSON.parse(p.shop(['status', String(id), '--json'], { env: KOLKATA }).stdout)),
      LogJsonSchema.parse(JSON.parse(p.shop(['log', String(id), '--json'], { env: KOLKATA }).stdout)),
      JSON.parse(p.shop(['inbox', '--json'], { env: KOLKATA }).stdout),
    ];
    const times: string[] = [];
    const walk = (v: unknown, key = ''): void => {
      if (Array.isArray(v)) v.forEach((x) => walk(x, key));
      else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, k);
      else if (/(^|_)(at|since)$/.test(key)) times.push(String(v));
    };
    docs.forEach((d) => walk(d));
    expect(times.length).toBeGreaterThan(10);
    for (const t of times.filter((x) => x !== 'null'))
      expect(t).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/);
  });
});

describe('shop status on a long run', () => {
  let l: Project;
  let id: number;
  beforeAll(() => {
    l = makeProject();
    // Call 1 is the parallel, 1/1/1 a pause that waits, 1/2/1 … 1/2/60 sixty recorded now() calls.
    l.write(
      'workflows/long.lua',
      'function workflow(prompt)\n  parallel(function() return pause("Hold on?").continue end, function() for i = 1, 60 do now() end end)\n  return "done"\nend\n',
    );
    id = runId(l.shop(['run', 'long']));
  });
  const callRows = (out: string) =>
    lines(out)
      .filter((line) => line.startsWith('#'))
      .map((line) => line.split(/\s+/)[0]);

  it('a pipe gets every call; --limit N the latest N and every open one, saying how many it left out', () => {
    expect(callRows(l.shop(['status', String(id)]).stdout)).toHaveLength(62);
    expect(l.shop(['status', String(id)]).stdout).not.toContain('earlier');
    const out = l.shop(['status', String(id), '--limit', '5']).stdout;
    expect(callRows(out)).toEqual(['#1', '#1/1/1', '#1/2/56', '#1/2/57', '#1/2/58', '#1/2/59', '#1/2/60']);
    expect(out).toContain(`… 55 earlier calls (shop status ${id} --limit 0 for all)`);
    expect(lines(out).find((line) => line.startsWith('#1 '))).toMatch(
      /^#1 +parallel +running +- +waiting for its 2 branches \(\d+s\)$/,
    );
    expect(callRows(l.shop(['status', String(id), '--limit', '0']).stdout)).toHaveLength(62);
    expect(refused(l.shop(['status', String(id), '--limit=-1']), 2)).toContain(
      '--limit "-1" must be a whole number of calls',
    );
  });

  it('--json has every call and the count; with --limit the latest and open ones, the count still whole', () => {
    const all = RunDetailJsonSchema.parse(JSON.parse(l.shop(['status', String(id), '--json']).stdout));
    expect(all.calls).toBe(62);
    expect(all.executions).toHaveLength(62);
    const cut = RunDetailJsonSchema.parse(JSON.parse(l.shop(['status', String(id), '--json', '--limit', '1']).stdout));
    expect(cut.calls).toBe(62);
    expect(cut.executions.map((e) => e.key)).toEqual(['1', '1/1/1', '1/2/60']);
    expect(cut.asks.map((a) => a.key)).toEqual(['1/1/1']);
  });

  it('is answered like any run, and then completes', () => {
    expect(l.shop(['approve', String(id)]).code).toBe(0);
    expect(l.shop(['status', String(id), '--json']).stdout).toContain('"status": "completed"');
  });
});

describe('shop list', () => {
  let l: Project;
  let ids: number[] = [];
  beforeAll(() => {
    l = makeProject();
    l.write('workflows/quick.lua', 'function workflow(prompt)\n  return run("coder", prompt).status\nend\n');
    ids = [1, 2, 3, 4, 5].map(() => runId(l.shop(['run', 'quick', 'x'])));
  });

  it('shows AGE and COST, newest first, all of them on a pipe', () => {
    const out = lines(l.shop(['list']).stdout);
    expect(out[0]).toMatch(/^ID +SPEC +STATUS +AGENT +AWAITING +AGE +COST +NOW \/ WAITING FOR \/ REASON$/);
    expect(out.slice(1).map((l) => Number(l.split(/\s+/)[0]))).toEqual([...ids].reverse());
    expect(out[1]).toMatch(/^\d+ +quick +completed +- +- +\d+s +\$0\.01 +-$/);
  });

  it('--limit N cuts, saying how many more there are; --limit 0 and --json on a pipe give all', () => {
    const out = lines(l.shop(['list', '--limit', '2']).stdout);
    expect(out.slice(1, 3).map((l) => Number(l.split(/\s+/)[0]))).toEqual([ids[4], ids[3]]);
    expect(out[3]).toBe('… 3 more (shop list --limit 0 for all)');
    expect(out).toHaveLength(4);
    expect(lines(l.shop(['list', '--limit', '0']).stdout)).toHaveLength(6);
    expect(l.list()).toHaveLength(5);
    expect(JSON.parse(l.shop(['list', '--json', '--limit', '2']).stdout).map((r: { id: number }) => r.id)).toEqual([
      ids[4],
      ids[3],
    ]);
    expect(refused(l.shop(['list', '--limit', 'lots']), 2)).toContain('--limit "lots" must be a whole number');
  });

  it('--status interrupted lists running runs whose driver is gone, and --status running no longer does', () => {
    const db = new Database(join(l.dir, '.shop', 'shop.db'));
    db.prepare(
      `UPDATE runs SET status = 'running', ended_at = NULL, owner_token = 'gone', owner_host = ?, owner_pid = 999999, lease_until = 1 WHERE id = ?`,
    ).run(hostname(), ids[1]);
    db.close();
    const interrupted = lines(l.shop(['list', '--status', 'interrupted']).stdout);
    expect(interrupted.slice(1).map((l) => l.split(/\s+/).slice(0, 3))).toEqual([
      [String(ids[1]), 'quick', 'interrupted'],
    ]);
    expect(l.shop(['list', '--status', 'running']).stdout).toBe('no runs match\n');
    expect(JSON.parse(l.shop(['list', '--status', 'interrupted', '--json']).stdout)).toMatchObject([
      { id: ids[1], status: 'interrupted' },
    ]);
  });

  it('a pipe gets whole lines and no escape codes; FORCE_COLOR asks for colour anyway', () => {
    const long = `Which of these ${'very '.repeat(8)}long options should the coder take?`;
    l.scenario({ agents: { coder: [{ status: 'NEEDS_HUMAN', reason: long }] } });
    const id = runId(l.shop(['run', 'quick', 'z']));
    expect(long.length).toBeGreaterThan(80);
    const out = [l.shop(['list']), l.shop(['status', String(id)]), l.shop(['inbox']), l.shop(['log', String(id)])]
      .map((r) => r.stdout)
      .join('');
    expect(out).not.toContain('\x1b');
    expect(lines(l.shop(['list']).stdout).find((l) => l.startsWith(String(id)))).toContain(long);
    expect(l.shop(['list'], { env: { FORCE_COLOR: '1' } }).stdout).toContain('\x1b[33mwaiting_human\x1b[0m');
    expect(l.shop(['list'], { env: { FORCE_COLOR: '1', NO_COLOR: '1' } }).stdout).not.toContain('\x1b');
  });
});

describe('tables with wide characters', () => {
  it('line up by terminal columns: CJK and emoji take two, a combining accent none', () => {
    const q = makeProject();
    const ask = 'function workflow(prompt)\n  return pause(prompt).continue\nend\n';
    const specs = ['デプロイ', 'rocket🚀', 'cafe\u0301'];
    const questions = ['デプロイしますか？', 'Ship it? 🚀', 'Cafe\u0301 ok?'];
    for (const spec of specs) q.write(`workflows/${spec}.lua`, ask);
    const ids = specs.map((spec, i) => runId(q.shop(['run', spec, questions[i]])));
    // SPEC is 8 columns wide (デプロイ and rocket🚀 fill it); STATUS starts after it on every row.
    const listed = lines(q.shop(['list']).stdout);
    const pads = ['', '', '    '];
    specs.forEach((spec, i) => {
      expect(listed.find((l) => l.startsWith(`${ids[i]} `))).toMatch(
        new RegExp(`^${ids[i]}   ${spec}${pads[i]}  waiting_human  `),
      );
    });
    // QUESTION is 18 columns wide (the Japanese one); ANSWER WITH starts after it on every row.
    const inbox = lines(q.shop(['inbox']).stdout);
    const gaps = [2, 9, 12];
    questions.forEach((question, i) => {
      expect(inbox.find((l) => l.startsWith(`${ids[i]} `))).toContain(
        `${question}${' '.repeat(gaps[i])}shop continue ${ids[i]}.1`,
      );
    });
  });
});

describe('store errors name the file and what to do', () => {
  it('a file that is not a database', () => {
    const q = makeProject();
    writeFileSync(join(q.dir, '.shop', 'shop.db'), 'these are not the bytes of a database '.repeat(30));
    expect(refused(q.shop(['list']), 1)).toBe(
      `shop: ${join(q.dir, '.shop', 'shop.db')} is not a Shop store (damaged, or another kind of file); restore it from a backup, or move it aside and run shop init`,
    );
  });

  it('a read-only store', () => {
    const q = makeProject();
    q.write('workflows/quick.lua', 'function workflow(prompt)\n  return run("coder", prompt).status\nend\n');
    expect(q.shop(['run', 'quick', 'x']).code).toBe(0);
    const home = join(q.dir, '.shop');
    for (const f of readdirSync(home)) if (f.startsWith('shop.db')) chmodSync(join(home, f), 0o444);
    chmodSync(home, 0o555);
    chmodSync(q.dir, 0o755);
    // Root reads and writes whatever the permissions say: run shop as nobody then.
    const asNobody = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
    const r = spawnSync(process.execPath, [shopBin, 'list'], { cwd: q.dir, env: q.env, encoding: 'utf8', ...asNobody });
    try {
      expect(refused({ code: r.status, stdout: r.stdout, stderr: r.stderr }, 1)).toBe(
        `shop: the store ${join(home, 'shop.db')} is read-only (check the permissions of the file and its folder, or set SHOP_HOME to a writable folder)`,
      );
    } finally {
      chmodSync(home, 0o755);
    }
  });

  it('a store another process holds locked past the busy timeout (5 s)', () => {
    const q = makeProject();
    const file = join(q.dir, '.shop', 'shop.db');
    const holder = new Database(file);
    holder.pragma('locking_mode = EXCLUSIVE');
    holder.exec('BEGIN EXCLUSIVE; CREATE TABLE IF NOT EXISTS held (x); COMMIT; BEGIN EXCLUSIVE');
    try {
      expect(refused(q.shop(['list']), 1)).toBe(
        `shop: the store ${file} is locked by another process (waited 5 s); try again when it is done, or find it with: fuser ${file}`,
      );
    } finally {
      holder.close();
    }
    expect(q.shop(['list']).code).toBe(0);
  }, 20_000);
});

describe('shop continue without a terminal', () => {
  it("on an agent's ask: one line pointing to shop answer, exit 2, and no Claude session started", () => {
    const q = makeProject();
    q.write('workflows/ask.lua', 'function workflow(prompt)\n  return run("coder", prompt).summary\nend\n');
    q.scenario({ agents: { coder: [{ status: 'NEEDS_HUMAN', reason: 'Which region?' }] } });
    const id = runId(q.shop(['run', 'ask', 'x']));
    const line = refused(q.shop(['continue', String(id)], { input: 'eu-west\n/exit\n' }), 2);
    expect(line).toBe(
      `shop: shop continue opens coder's Claude session and needs a terminal; without one, answer with: shop answer ${id}.1 "…" · shop reject ${id}.1 "feedback"`,
    );
    expect(q.invocations().filter((i) => i.mode !== 'print')).toEqual([]);
    expect(q.status(id).status).toBe('waiting_human');
  });

  it('at a pause: piped answers decide it, but --claude (a review session) needs a terminal', () => {
    const id = runId(p.shop(['run', 'gate']));
    expect(refused(p.shop(['continue', String(id), '--claude']), 2)).toMatch(
      /^shop: --claude opens a review session in Claude Code and needs a terminal; without one, decide with: shop approve \d+\.1 · shop reject \d+\.1 "why"$/,
    );
    expect(refused(p.shop(['continue', String(id), '--editor']), 2)).toBe(
      `shop: --editor opens the workspace in your editor and needs a terminal; without one, open ${p.dir} yourself`,
    );
    const r = p.shop(['continue', String(id)], { input: 'y\n\n' });
    expect(r.code, r.stderr).toBe(0);
    expect(p.status(id)).toMatchObject({ status: 'completed', result: true });
  });
});

describe('wording', () => {
  it('an answer reads "answered by NAME: words", also when a second one is refused', () => {
    p.scenario({
      agents: {
        coder: [
          { status: 'NEEDS_HUMAN', reason: 'Which database?' },
          { status: 'DONE', summary: 'ok' },
        ],
      },
    });
    const id = runId(p.shop(['run', 'ask', 'x']));
    const r = p.shop(['answer', `${id}.1`, 'use postgres']);
    expect(lines(r.stdout)[0]).toBe(`run ${id} call 1 (${id}.1): answered by tester: use postgres`);
    expect(r.stdout).not.toContain('answered answer');
    const again = p.shop(['answer', String(id), 'mysql']);
    expect(again.code).toBe(6);
    expect(again.stderr).toMatch(
      new RegExp(`^shop: ${id}\\.1 \\(run ${id} call 1\\) was already answered by tester \\(cli\\) at `),
    );
  });

  it('approving a pause that lacks required decisions names shop signal --answers, not a flag approve lacks', () => {
    p.write(
      'workflows/form.lua',
      'function workflow(prompt)\n  return pause{ message = "Budget?", decisions = { { id = "cap", type = "number", prompt = "Cap?" } } }.answers.cap\nend\n',
    );
    const id = runId(p.shop(['run', 'form']));
    expect(refused(p.shop(['approve', String(id)]), 2)).toBe(
      `shop: approving needs every decision: cap: required (number: Cap?); give them with: shop signal ${id}.1 --answers '{"cap": …}'`,
    );
  });

  it('an agent ending without a signal points at its output (stdout.log) and what it said last', () => {
    p.scenario({ agents: { coder: [{ via: 'none', summary: 'I changed three files' }] } });
    const r = p.shop(['run', 'quick', 'x']);
    const id = runId(r);
    const line = refused({ ...r, stdout: '' }, 1);
    expect(line).toMatch(
      new RegExp(
        `^shop: run ${id} failed: agent coder ended without a signal; its last words: I changed three files \\(its output: .*/1\\.coder\\.1\\.stdout\\.log\\)$`,
      ),
    );
  });
});

describe('example agents', () => {
  it('can report (Bash(shop report:*) allowed) and none runs in plan mode', () => {
    const q = makeProject();
    const r = q.shop(['run', 'feature', 'add a login page']);
    expect(r.code, r.stderr).toBe(3);
    const agents = new Set(q.invocations().map((i) => i.agent));
    expect([...agents].sort()).toEqual(['architect', 'coder', 'reviewer']);
    for (const i of q.invocations()) {
      expect(i.allowed_tools, i.agent).toContain('Bash(shop report:*)');
      expect(i.permission_mode, i.agent).not.toBe('plan');
    }
    for (const f of readdirSync(join(q.dir, 'agents'))) {
      const front = readFileSync(join(q.dir, 'agents', f), 'utf8').split('---')[1];
      expect(front, f).toContain('"Bash(shop report:*)"');
      expect(front, f).not.toMatch(/permission_?[mM]ode: plan/);
    }
  });
});
