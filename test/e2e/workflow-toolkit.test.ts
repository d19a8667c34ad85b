import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ReplayJsonSchema, TestJsonSchema, TestRunsJsonSchema } from '../../packages/core/src/operations/shapes.js';
import { lines, makeProject, repoRoot, runId, type Project } from './harness.js';
import { tempDir } from '../../packages/core/src/testing/temp-dir.js';

/** A copy of a shipped fixture, changed by `edit`, written into the project. */
function fixtureFrom(p: Project, workflow: string, name: string, edit: (f: any) => void): string {
  const f = JSON.parse(p.read(`workflows/${workflow}.test.json`));
  edit(f);
  p.write(name, JSON.stringify(f));
  return name;
}

describe('shop test: a workflow on simulated agents and people', () => {
  it('the shipped fixtures pass: feature, bugfix and the parallel example, each path printed', () => {
    const p = makeProject();
    const feature = p.shop(['test', 'feature']);
    expect(feature.code).toBe(0);
    expect(lines(feature.stdout)).toEqual([
      'feature on workflows/feature.test.json:',
      '  [1] architect → DONE: a login form, a session cookie, tests',
      '  [2] coder → DONE: login page',
      '  [3] reviewer → CHANGES_REQUESTED: test a wrong password',
      '  log: review round 1: changes requested',
      '  [4] coder → DONE: login page, with a test for a wrong password',
      '  [5] reviewer → APPROVED: looks good',
      '  [6] pause: Approve deployment?',
      '  [6] tester: approve "ship it"',
      '  [7] deployer → DONE: deployed to staging',
      'outcome: completed {"shipped":true,"rounds":2,"deploy":"deployed to staging"}',
      'calls: architect, coder, reviewer, coder, reviewer, _checkpoint, deployer',
      '✓ pass',
    ]);
    const bugfix = p.shop(['test', 'bugfix']);
    expect(bugfix.code).toBe(0);
    expect(bugfix.stdout).toContain(
      '  [1] tester: answer "any account whose password ends with a space"\n  [1] coder → DONE: a failing test',
    );
    const parallel = p.shop(['test', 'review-parallel', '--json']);
    expect(parallel.code).toBe(0);
    const json = TestJsonSchema.parse(JSON.parse(parallel.stdout));
    expect(json).toMatchObject({
      workflow: 'review-parallel',
      status: 'completed',
      result: { approved: true, rounds: 2 },
      passed: true,
      problems: [],
    });
    expect(json.path.slice(1, 4)).toEqual([
      '[2/1/1] reviewer → APPROVED: correct',
      '[2/2/1] reviewer → CHANGES_REQUESTED: limit per account too, not only per IP',
      '[2/3/1] reviewer → CHANGES_REQUESTED: no test for the limit',
    ]);
    // Nothing ran for real: no agent process, no run in the project's store.
    expect(p.invocations()).toEqual([]);
    expect(p.list()).toEqual([]);
  });

  it('a fixture the workflow does not meet fails with a diff (exit 1): feature and the parallel example', () => {
    const p = makeProject();
    const never = fixtureFrom(p, 'feature', 'never.json', (f) => {
      f.agents.reviewer = [
        { status: 'CHANGES_REQUESTED' },
        { status: 'CHANGES_REQUESTED' },
        { status: 'CHANGES_REQUESTED', summary: 'still no tests' },
      ];
      f.agents.coder.push({ summary: 'v3' });
    });
    const r = p.shop(['test', 'feature', '--fixture', never]);
    expect(r.code).toBe(1);
    expect(r.stdout.slice(r.stdout.indexOf('outcome:'))).toBe(
      [
        'outcome: stuck: the reviewer did not approve after 3 rounds',
        'calls: architect, coder, reviewer, coder, reviewer, coder, reviewer',
        '✗ fail: 3 differences from expect',
        '  status: expected completed, got stuck (the reviewer did not approve after 3 rounds)',
        '  result:',
        '    - {',
        '    -   "shipped": true,',
        '    -   "rounds": 2,',
        '    -   "deploy": "deployed to staging"',
        '    - }',
        '    + null',
        '  calls: differ at call 6: expected _checkpoint, got coder',
        '    expected: architect, coder, reviewer, coder, reviewer, _checkpoint, deployer',
        '    got:      architect, coder, reviewer, coder, reviewer, coder, reviewer',
        '',
      ].join('\n'),
    );

    const oneRound = fixtureFrom(p, 'review-parallel', 'one-round.json', (f) => {
      f.agents.reviewer = [{ status: 'APPROVED' }, { status: 'APPROVED' }, { status: 'APPROVED' }];
    });
    const pr = p.shop(['test', 'review-parallel', '--fixture', oneRound, '--json']);
    expect(pr.code).toBe(1);
    expect(TestJsonSchema.parse(JSON.parse(pr.stdout))).toMatchObject({
      status: 'completed',
      result: { approved: true, rounds: 1 },
      passed: false,
      problems: [
        'result:\n    {\n      "approved": true,\n  -   "rounds": 2\n  +   "rounds": 1\n    }',
        'calls: differ at call 6: expected coder, got (no more calls)\n  expected: coder, parallel, reviewer, reviewer, reviewer, coder, parallel, reviewer, reviewer, reviewer\n  got:      coder, parallel, reviewer, reviewer, reviewer',
      ],
    });
  });

  it('a bad fixture is named, each problem by its path (exit 2); an ask with no scripted answer names the call', () => {
    const p = makeProject();
    p.write(
      'bad.json',
      JSON.stringify({
        agents: { coder: [{ status: 'done' }] },
        humans: [{ call: '1' }],
        expect: { status: 'ok' },
        extra: 1,
      }),
    );
    const bad = p.shop(['test', 'feature', '--fixture', 'bad.json']);
    expect(bad.code).toBe(2);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toBe(
      'shop: bad fixture bad.json: agents.coder.0.status: must be an UPPER_CASE status such as DONE or NEEDS_HUMAN; ' +
        "humans.0: give exactly one of verdict, status, answers; expect.status: must be one of completed, stuck, failed, waiting_human, or a list of them; (top): unknown key 'extra'\n",
    );
    p.write('broken.json', '{"agents": ');
    expect(p.shop(['test', 'feature', '--fixture', 'broken.json'])).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/^shop: fixture broken\.json is not valid JSON: /),
    });
    expect(p.shop(['test', 'feature', '--fixture', 'nope.json'])).toMatchObject({
      code: 2,
      stderr: 'shop: fixture nope.json does not exist\n',
    });
    // An answer its ask refuses is a fixture error too.
    const refused = fixtureFrom(
      p,
      'feature',
      'refused.json',
      (f) => (f.humans = [{ pause: 'Approve deployment?', status: 'DONE' }]),
    );
    expect(p.shop(['test', 'feature', '--fixture', refused])).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/^shop: humans\[0\] cannot answer call 6: /),
    });

    const nobody = fixtureFrom(p, 'feature', 'nobody.json', (f) => (f.humans = []));
    const r = p.shop(['test', 'feature', '--fixture', nobody]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      'outcome: waiting_human: no scripted answer for call 6 (_checkpoint: Approve deployment?)',
    );
  });

  it('--runs N samples verdicts by seed: the same seeds give the same distribution, twice', () => {
    const p = makeProject();
    const mixed = fixtureFrom(p, 'feature', 'mixed.json', (f) => {
      f.humans = [{ pause: 'Approve deployment?', verdict: { approve: 0.7, reject: 0.3 }, message: 'not this week' }];
      f.expect = { status: ['completed', 'stuck'] };
    });
    const first = p.shop(['test', 'feature', '--fixture', mixed, '--runs', '40', '--seed', '7', '--json']);
    expect(first.code).toBe(0);
    const dist = TestRunsJsonSchema.parse(JSON.parse(first.stdout));
    expect(dist).toMatchObject({ runs: 40, seeds: [7, 46], passed: 40, failed: 0 });
    expect(dist.outcomes.map((o) => [o.status, o.reason])).toEqual(
      expect.arrayContaining([
        ['completed', null],
        ['stuck', 'not this week'],
      ]),
    );
    expect(dist.outcomes.reduce((n, o) => n + o.count, 0)).toBe(40);
    expect(dist.outcomes.flatMap((o) => o.seeds).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 40 }, (_, i) => 7 + i),
    );
    expect(p.shop(['test', 'feature', '--fixture', mixed, '--runs', '40', '--seed', '7', '--json']).stdout).toBe(
      first.stdout,
    );

    const text = p.shop(['test', 'feature', '--fixture', mixed, '--runs', '40', '--seed', '7']);
    const [completed, stuck] = ['completed', 'stuck'].map((s) => dist.outcomes.find((o) => o.status === s)!.count);
    expect(text.stdout).toContain(
      `  ${String(completed).padStart(2)}  ${String(Math.round((100 * completed) / 40)).padStart(3)}%  completed {"shipped":true,"rounds":2,"deploy":"deployed to staging"}`,
    );
    expect(text.stdout).toContain(
      `  ${String(stuck).padStart(2)}  ${String(Math.round((100 * stuck) / 40)).padStart(3)}%  stuck: not this week`,
    );
    expect(lines(text.stdout).at(-1)).toBe('✓ all 40 runs met expect');
  });
});

const GATED = `function workflow(p)
  local plan = run("architect", "Plan: " .. p)
  local ok = pause("Build it?")
  return run("coder", "Build: " .. (plan.summary or "")).summary
end
`;

describe('shop replay: suspended runs against changed workflows', () => {
  it('unchanged: compatible; a changed prompt: the call named; a change guarded by patched(): compatible; nothing written', () => {
    const p = makeProject();
    p.write('workflows/gated.lua', GATED);
    const a = runId(p.shop(['run', 'gated', 'login']));
    const b = runId(p.shop(['run', 'gated', 'logout']));
    const done = runId(p.shop(['run', 'bugfix', 'x']));
    expect([p.status(a).status, p.status(b).status, p.status(done).status]).toEqual([
      'waiting_human',
      'waiting_human',
      'completed',
    ]);
    const before = JSON.stringify([p.status(a), p.status(b)]);
    const agents = p.invocations().length;

    const same = p.shop(['replay']);
    expect(same.code).toBe(0);
    expect(lines(same.stdout)).toEqual([
      `✓ run ${a} (gated, waiting_human) against workflows/gated.lua: compatible`,
      `✓ run ${b} (gated, waiting_human) against workflows/gated.lua: compatible`,
      '2 runs checked: 2 compatible, 0 not',
    ]);

    p.write('workflows/gated.lua', GATED.replace('"Plan: "', '"Plan carefully: "'));
    const changed = p.shop(['replay', String(a), '--json']);
    expect(changed.code).toBe(1);
    expect(ReplayJsonSchema.parse(JSON.parse(changed.stdout))).toEqual([
      {
        run: a,
        spec: 'gated',
        status: 'waiting_human',
        workflow: 'workflows/gated.lua',
        compatible: false,
        problem: expect.stringMatching(/^non-determinism at call 1: /),
        non_determinism: {
          key: '1',
          recorded: 'run("architect") with prompt "Plan: login"',
          now: 'calls run("architect") with prompt "Plan carefully: login"',
        },
        held: null,
      },
    ]);
    expect(p.shop(['replay']).stdout).toContain(
      `✗ run ${b} (gated, waiting_human) against workflows/gated.lua: non-determinism at call 1: the log recorded run("architect") with prompt "Plan: logout" but the workflow now calls run("architect") with prompt "Plan carefully: logout"`,
    );

    // The new version, checked from elsewhere before it is put in place.
    p.write('workflows/gated.lua', GATED);
    mkdirSync(join(p.dir, 'next'));
    p.write(
      'next/gated.lua',
      GATED.replace(
        '  local ok = pause',
        '  if patched("lint") then run("reviewer", "lint the plan") end\n  local ok = pause',
      ),
    );
    const guarded = p.shop(['replay', '--workflow', 'next/gated.lua']);
    expect(guarded.code).toBe(0);
    expect(lines(guarded.stdout)).toEqual([
      `✓ run ${a} (gated, waiting_human) against next/gated.lua: compatible`,
      `✓ run ${b} (gated, waiting_human) against next/gated.lua: compatible`,
      '2 runs checked: 2 compatible, 0 not',
    ]);
    p.write(
      'gated-v3.lua',
      GATED.replace('  local ok = pause', '  run("reviewer", "lint the plan")\n  local ok = pause'),
    );
    // A file no run uses checked nothing: a usage error with the reason, not a pass (with --json too).
    for (const json of [[], ['--json']]) {
      const none = p.shop(['replay', '--workflow', 'gated-v3.lua', ...json]);
      expect(none).toMatchObject({ code: 2, stdout: '' });
      expect(none.stderr).toBe(
        'shop: --workflow "gated-v3.lua": no run that has not ended has a workflow named gated-v3.lua, so nothing was checked; give the runs to check against it (shop replay <id>… --workflow gated-v3.lua), or name the file after the workflow it replaces\n',
      );
    }
    expect(p.shop(['replay', String(b), '--workflow', 'gated-v3.lua'])).toMatchObject({
      code: 1,
      stdout: expect.stringContaining(
        'non-determinism at call 2: the log recorded pause("Build it?") but the workflow now calls run("reviewer")',
      ),
    });

    // Nothing was run or written; the runs resume as they were.
    expect(p.invocations().length).toBe(agents);
    expect(JSON.stringify([p.status(a), p.status(b)])).toBe(before);
    expect(p.shop(['approve', String(a)]).code).toBe(0);
    expect(p.status(a).status).toBe('completed');

    expect(p.shop(['replay', '999'])).toMatchObject({ code: 5, stderr: 'shop: no run 999 (see shop list)\n' });
    expect(p.shop(['replay', 'x'])).toMatchObject({ code: 2 });
  });
});

describe('npm run demo', () => {
  it('runs end to end on the simulated agents even with a failing `claude` first on PATH', () => {
    const bin = tempDir('shop-fake-claude-');
    const called = join(bin, 'called');
    writeFileSync(
      join(bin, 'claude'),
      `#!/bin/sh\ntouch '${called}'\necho 'Invalid API key · Please run /login' >&2\nexit 1\n`,
    );
    chmodSync(join(bin, 'claude'), 0o755);
    // The demo leaves its project behind for the person (mktemp -d): here, in a folder removed after the test.
    const env = {
      ...process.env,
      PATH: `${bin}:${process.env.PATH}`,
      SHOP_STANDIN_PACE_MS: '0',
      SHOP_DEMO_REAL: '',
      SHOP_CLAUDE_BIN: '',
      TMPDIR: tempDir('shop-demo-tmp-'),
    };
    const r = spawnSync('bash', [join(repoRoot, 'scripts', 'demo.sh')], { env, encoding: 'utf8', timeout: 120_000 });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    // It is shop demo, the command an installed Shop has too.
    expect(r.stdout).toContain(
      '(SHOP_DEMO_REAL=1 npm run demo runs it on Claude Code)\n(simulated agents: a stand-in for Claude Code that ships with Shop; nothing is spent)\n',
    );
    expect(r.stdout).toContain('✓ pass');
    expect(r.stdout).toContain('$ shop run feature "add a login page"      # exit 3: it waits for a person\n');
    expect(r.stdout).toMatch(/run 1 completed: \{.*"shipped":true/);
    // It answers the way the README and the hints teach: by the ask's handle, not a bare run id.
    expect(r.stdout).toContain(
      '$ shop approve 1.6 --message "ship it"\nrun 1 call 6 (1.6): answered approved by demo\n',
    );
    expect(r.stdout).not.toContain('one open ask');
    expect(existsSync(called)).toBe(false);
    const project = /The project stays in (\S+);/.exec(r.stdout)![1];
    expect(project.startsWith(env.TMPDIR)).toBe(true);
    expect(readFileSync(join(project, 'workflows', 'feature.test.json'), 'utf8')).toContain('"expect"');
  });
});
