import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lines, makeProject, runId, until, type Project } from './harness.js';

/**
 * require(name): shared Lua in workflows/lib, loaded in the run's sandbox. Its calls are the
 * requiring thread's, so a run loading modules at the top of its file and inside a parallel
 * branch survives kill -9 and resumes exactly; errors name the module's file and line; an agent
 * that edits a module holds the run like an edit of the workflow file.
 */

const HELPERS = 'local M = {}\nfunction M.branch(s)\n  return "shop/" .. s\nend\nreturn M\n';
const REVIEW =
  'local M = {}\nlog("review loaded")\nfunction M.check(p)\n  return run("reviewer", "check " .. p).summary\nend\nreturn M\n';
const FLOW = `local git = require("git.helpers")
function workflow(prompt)
  local a, b = parallel(
    function() return require("review").check(prompt) end,
    function() return git.branch(run("coder", "write " .. prompt).summary) end)
  local ok = pause("Merge " .. b .. "?")
  return a .. " " .. b .. " " .. tostring(ok.continue)
end
`;

function project(files: Record<string, string>): Project {
  const p = makeProject();
  mkdirSync(join(p.dir, 'workflows', 'lib', 'git'), { recursive: true });
  for (const [rel, text] of Object.entries(files)) p.write(rel, text);
  return p;
}

describe('require(name) in a real run', () => {
  it("modules loaded at the top and in a parallel branch: kill -9 while a branch's agent works, resume replays the rest exactly", async () => {
    const p = project({
      'workflows/lib/git/helpers.lua': HELPERS,
      'workflows/lib/review.lua': REVIEW,
      'workflows/merge.lua': FLOW,
    });
    p.scenario({
      agents: {
        reviewer: [{ summary: 'fine' }],
        coder: [{ summary: 'login', sleep_ms: 60_000 }, { summary: 'login' }],
      },
    });
    const bg = p.spawnShop(['run', 'merge', 'x']);
    await until('the reviewer done and the coder working', () => {
      const calls = p.invocations();
      return (
        /run \d+ started/.test(bg.output()) &&
        calls.some((i) => i.agent === 'coder') &&
        calls.some((i) => i.agent === 'reviewer') &&
        p.status(runId(bg.output())).executions.some((e) => e.key === '1/1/1' && e.status === 'completed')
      );
    });
    const id = runId(bg.output());
    bg.child.kill('SIGKILL');
    expect(await bg.exited).toBeNull();

    const resumed = p.shop(['resume', String(id)]);
    expect(resumed.stderr).toBe('');
    expect(resumed.code).toBe(3);
    expect(resumed.stdout).toContain('the workflow asks: Merge shop/login?');
    const done = p.shop(['approve', String(id)]);
    expect(lines(done.stdout).at(-1)).toBe(`run ${id} completed: "fine shop/login true"`);
    expect(done.code).toBe(0);

    const s = p.status(id);
    expect(s.executions.map((e) => [e.key, e.agent, e.status])).toEqual([
      ['1', null, 'completed'],
      ['1/1/1', 'reviewer', 'completed'],
      ['1/2/1', 'coder', 'completed'],
      ['2', '_checkpoint', 'completed'],
    ]);
    // The reviewer ran once; the coder was re-invoked on its own session; the module's log line is recorded once.
    expect(
      p
        .invocations()
        .map((i) => `${i.agent} ${i.call} ${i.resumed}`)
        .sort(),
    ).toEqual(['coder 1/2/1 false', 'coder 1/2/1 true', 'reviewer 1/1/1 false']);
    const log = JSON.parse(p.shop(['log', String(id), '--json']).stdout) as {
      events: { type: string; data: { message?: string } | null }[];
    };
    expect(log.events.filter((e) => e.type === 'log').map((e) => e.data?.message)).toEqual(['review loaded']);
  });

  it("errors name the module file and line: a syntax error is refused before the run exists (exit 2); a missing module and a module's runtime error fail the run", () => {
    const p = project({
      'workflows/lib/git/bad.lua': 'local M = {}\n\nM.x = = 1\nreturn M\n',
      'workflows/syntax.lua': 'local bad = require("git.bad")\nfunction workflow(p) return 1 end\n',
      'workflows/lib/m.lua': 'local M = {}\nfunction M.go()\n  error("no remote")\nend\nreturn M\n',
      'workflows/later.lua': 'local m = require("m")\nfunction workflow(p)\n  return m.go()\nend\n',
      'workflows/missing.lua': 'function workflow(p)\n  local n = 1\n  return require("git.nope")\nend\n',
    });
    const syntax = p.shop(['run', 'syntax', 'x']);
    expect([syntax.code, syntax.stdout, syntax.stderr]).toEqual([
      2,
      '',
      'shop: syntax.lua:1: require("git.bad"): workflows/lib/git/bad.lua:3: unexpected symbol near \'=\' (fix the Lua syntax in workflows/lib/git/bad.lua) (while loading syntax.lua)\n',
    ]);
    const later = p.shop(['run', 'later', 'x']);
    expect([later.code, later.stderr]).toEqual([
      1,
      `shop: run ${runId(later)} failed: workflows/lib/m.lua:3: no remote\n`,
    ]);
    const missing = p.shop(['run', 'missing', 'x']);
    expect([missing.code, missing.stderr]).toEqual([
      1,
      `shop: run ${runId(missing)} failed: missing.lua:3: require("git.nope"): no module file workflows/lib/git/nope.lua (create it, or fix the name)\n`,
    ]);
  });

  it('shop replay and shop test work with a workflow that requires modules', () => {
    const p = project({
      'workflows/lib/git/helpers.lua': HELPERS,
      'workflows/lib/review.lua': REVIEW,
      'workflows/merge.lua': FLOW,
    });
    p.scenario({ agents: { reviewer: [{ summary: 'fine' }], coder: [{ summary: 'login' }] } });
    const id = runId(p.shop(['run', 'merge', 'x']));
    expect(p.shop(['replay', String(id)]).stdout).toBe(
      `✓ run ${id} (merge, waiting_human) against workflows/merge.lua: compatible\n`,
    );
    p.write(
      'workflows/merge.test.json',
      JSON.stringify({
        prompt: 'x',
        agents: { reviewer: [{ summary: 'ok' }], coder: [{ summary: 'api' }] },
        humans: [{ ask: '*', verdict: 'approve' }],
        expect: { status: 'completed', result: 'ok shop/api true' },
      }),
    );
    const tested = p.shop(['test', 'merge']);
    expect(tested.stderr).toBe('');
    expect(tested.code).toBe(0);
  });
});

describe('a module is one of the rules a run obeys', () => {
  const SHIP = 'local M = {}\nfunction M.it()\n  return run("deployer", "ship it").summary\nend\nreturn M\n';
  const DEPLOY =
    'local ship = require("ship")\nfunction workflow(prompt)\n  run("coder", "prepare the release")\n  return ship.it()\nend\n';

  it('a coder that edits workflows/lib/ship.lua holds the run; resume refuses until it is back; then the deployer runs as the module said', () => {
    const p = project({ 'workflows/lib/ship.lua': SHIP, 'workflows/deploy.lua': DEPLOY });
    p.scenario({
      agents: {
        coder: [
          {
            status: 'DONE',
            summary: 'ready',
            write: {
              path: 'workflows/lib/ship.lua',
              text: 'return { it = function() return "skipped the deployer" end }\n',
            },
          },
        ],
        deployer: [{ status: 'DONE', summary: 'shipped' }],
      },
    });
    const r = p.shop(['run', 'deploy', 'x']);
    const id = runId(r);
    expect(r.stderr).toBe(
      `shop: run ${id} failed: workflows/lib/ship.lua changed during step ${id}.1 (coder); check the change, then shop resume ${id} --accept-changes (or restore the file and shop resume ${id})\n`,
    );
    expect(r.code).toBe(1);
    const refused = p.shop(['resume', String(id)]);
    expect(refused.code).toBe(6);
    expect(refused.stderr).toContain(`run ${id} is held: workflows/lib/ship.lua changed during step ${id}.1 (coder)`);

    p.write('workflows/lib/ship.lua', SHIP);
    const resumed = p.shop(['resume', String(id)]);
    expect(lines(resumed.stdout).at(-1)).toBe(`run ${id} completed: "shipped"`);
    expect(resumed.code).toBe(0);
    expect(p.invocations().map((i) => i.agent)).toEqual(['coder', 'deployer']);
  });
});
