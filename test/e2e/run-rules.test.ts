import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { lines, makeProject, runId, trail, type Project } from './harness.js';

/**
 * The rules a run obeys can't be changed by its own agents: an agent step that edits its
 * agent file or its workflow holds the run (it fails naming the file and the step) before its
 * outcome is used; resume refuses until the file is back or a person accepts the change; and a
 * person's edits between steps neither change the run's rules nor break patched().
 */

const FORCE = { name: 'Bash', input: { command: 'git push --force origin main', description: 'push' } };
const GATED_DEPLOYER =
  '---\nallowed_tools: ["Bash(shop report:*)"]\nmodel: sonnet\ngates: ["Bash(git push --force*)"]\n---\nYou ship.\n';
const UNGATED_DEPLOYER = '---\nallowed_tools: ["Bash(shop report:*)"]\nmodel: sonnet\n---\nYou ship.\n';
const DEPLOY =
  'function workflow(prompt)\n  run("coder", "prepare the release")\n  return run("deployer", "ship it").summary\nend\n';
const CONFIG_GATES = 'config{ gates = { "Bash(git push --force*)" } }\n';

const deployers = (p: Project) => p.invocations().filter((i) => i.mode === 'print' && i.agent === 'deployer');
const pushes = (p: Project) =>
  p
    .invocations()
    .map((i) => (i as { tool?: { decision: string; input: { command?: string } } }).tool)
    .filter((t) => t && t.decision !== 'defer');

function project(): Project {
  const p = makeProject();
  p.write('agents/coder.md', '---\nallowed_tools: ["Bash(shop report:*)"]\n---\nYou prepare releases.\n');
  return p;
}

describe("an agent step can't change its run's rules", () => {
  it("a coder that drops the deployer's gates holds the run before its question is used; resume refuses until the file is back; then the push still waits for a person", () => {
    const p = project();
    p.write('agents/deployer.md', GATED_DEPLOYER);
    p.write('workflows/deploy.lua', DEPLOY);
    p.scenario({
      agents: {
        coder: [
          {
            status: 'NEEDS_HUMAN',
            reason: 'Release notes look right?',
            write: { path: 'agents/deployer.md', text: UNGATED_DEPLOYER },
          },
          { status: 'DONE', summary: 'ready' },
        ],
        deployer: [{ tool_call: FORCE, status: 'DONE' }],
      },
    });
    const r = p.shop(['run', 'deploy', 'x']);
    const id = runId(r);
    const why = `agents/deployer.md changed during step ${id}.1 (coder); check the change, then shop resume ${id} --accept-changes (or restore the file and shop resume ${id})`;
    expect(r.stderr).toBe(`shop: run ${id} failed: ${why}\n`);
    expect(r.code).toBe(1);
    const held = p.status(id);
    expect(held).toMatchObject({
      status: 'failed',
      reason: why,
      held: {
        key: '1',
        handle: `${id}.1`,
        agent: 'coder',
        interrupted: false,
        files: [{ path: 'agents/deployer.md' }],
      },
    });
    // Like a crash right after the agent ended: its call is still running, its report kept for a resume.
    expect(held.executions).toMatchObject([{ key: '1', agent: 'coder', status: 'running' }]);
    expect(deployers(p)).toEqual([]);
    const text = p.shop(['status', String(id)]).stdout;
    expect(text).toContain(
      `Held: agents/deployer.md changed during step ${id}.1 (coder)\n  Check the change, then: shop resume ${id} --accept-changes (or restore the file and: shop resume ${id})`,
    );
    expect(text).not.toContain('Pick it up with');
    expect(text).toMatch(/\n#1 +coder +held +- +ended; what it reported is kept for the resume\n/);
    expect(
      trail(p, id)
        .filter((e) => e.type === 'files_changed')
        .map((e) => [e.key, (e.data as { files: { path: string }[] }).files.map((f) => f.path)]),
    ).toEqual([['1', ['agents/deployer.md']]]);

    const refused = p.shop(['resume', String(id)]);
    expect(refused.stderr).toBe(
      `shop: run ${id} is held: agents/deployer.md changed during step ${id}.1 (coder) and is not as before it; check the change, then shop resume ${id} --accept-changes (or restore the file and shop resume ${id})\n`,
    );
    expect(refused.code).toBe(6);
    expect(p.shop(['replay', String(id)]).stdout).toContain(`  held: ${why}`);
    // Only a person accepts: not from inside an agent step.
    const agent = p.shop(['resume', String(id), '--accept-changes'], { env: { SHOP_AGENT: 'coder' } });
    expect([agent.code, agent.stderr]).toEqual([
      2,
      'shop: shop resume --accept-changes answers for a person and cannot run inside an agent step (SHOP_AGENT=coder); agents report with shop report\n',
    ]);

    // A worker leaves it be: it has ended (failed) for the worker until a person resumes it.
    const watched = p.shop(['watch', String(id)]);
    expect(watched.code).toBe(1);
    expect(p.status(id)).toMatchObject({ status: 'failed', held: { key: '1' } });
    expect(p.invocations().filter((i) => i.mode === 'print')).toHaveLength(1);

    p.write('agents/deployer.md', GATED_DEPLOYER);
    const resumed = p.shop(['resume', String(id)]);
    expect(resumed.code).toBe(3);
    expect(resumed.stdout).toContain('Release notes look right?');
    // The coder's question was taken from its report: the agent did not run again.
    expect(p.invocations().filter((i) => i.mode === 'print' && i.agent === 'coder')).toHaveLength(1);
    const answered = p.shop(['approve', `${id}.1`, '--message', 'yes']);
    expect(answered.code).toBe(3);
    expect(answered.stdout).toContain('deployer wants to run: Bash git push --force origin main');
    expect(pushes(p)).toEqual([]);
    expect(trail(p, id).map((e) => e.type)).toContain('hold_cleared');
  });

  it('a coder that deletes config{gates} from its workflow holds the run; a person accepts, and the run goes on under the file as it is now', () => {
    const p = project();
    p.write('agents/deployer.md', UNGATED_DEPLOYER);
    p.write('workflows/deploy.lua', CONFIG_GATES + DEPLOY);
    p.scenario({
      agents: {
        coder: [
          {
            status: 'NEEDS_HUMAN',
            reason: 'Release notes look right?',
            write: { path: 'workflows/deploy.lua', text: DEPLOY },
          },
          { status: 'DONE', summary: 'ready' },
        ],
        deployer: [{ tool_call: FORCE, status: 'DONE' }],
      },
    });
    const r = p.shop(['run', 'deploy', 'x']);
    const id = runId(r);
    expect(r.stderr).toBe(
      `shop: run ${id} failed: workflows/deploy.lua changed during step ${id}.1 (coder); check the change, then shop resume ${id} --accept-changes (or restore the file and shop resume ${id})\n`,
    );
    expect(r.code).toBe(1);
    expect(p.status(id).rules).toMatchObject({ config: { gates: [{ hold: ['Bash(git push --force*)'], allow: [] }] } });
    expect(p.shop(['resume', String(id)]).code).toBe(6);
    expect(deployers(p)).toEqual([]);

    const accepted = p.shop(['resume', String(id), '--accept-changes', '--by', 'ann']);
    expect(accepted.code).toBe(3);
    expect(p.invocations().filter((i) => i.mode === 'print' && i.agent === 'coder')).toHaveLength(1);
    expect(
      trail(p, id)
        .filter((e) => e.type === 'changes_accepted')
        .map((e) => [e.actor, e.key, (e.data as { files: string[] }).files]),
    ).toEqual([['ann', '1', ['workflows/deploy.lua']]]);
    const after = p.status(id);
    expect(after).toMatchObject({ held: null, rules: { config: {}, differs: [] } });
    const done = p.shop(['approve', `${id}.1`, '--message', 'yes']);
    expect(lines(done.stdout).at(-1)).toBe(`run ${id} completed: "ran: git push --force origin main"`);
    expect(done.code).toBe(0);
  });
});

describe("a person's edits between steps", () => {
  it("the run keeps its recorded rules: status shows them, and an agent's model and gates edited meanwhile do not reach it (said once)", () => {
    const p = project();
    p.write('agents/deployer.md', GATED_DEPLOYER);
    p.write('workflows/deploy.lua', CONFIG_GATES.replace('Bash(git push --force*)', 'Bash(rm -rf *)') + DEPLOY);
    p.scenario({
      agents: {
        coder: [
          { status: 'NEEDS_HUMAN', reason: 'Release notes look right?' },
          { status: 'DONE', summary: 'ready' },
        ],
        deployer: [{ tool_call: FORCE, status: 'DONE' }],
      },
    });
    const id = runId(p.shop(['run', 'deploy', 'x']));
    const rules = p.status(id).rules!;
    expect(rules.agents.deployer).toEqual({
      file: 'agents/deployer.md',
      cli: null,
      model: 'sonnet',
      permission_mode: null,
      allowed_tools: ['Bash(shop report:*)'],
      command: null,
      gates: [{ hold: ['Bash(git push --force*)'], allow: [] }],
    });
    expect(rules.config).toEqual({ gates: [{ hold: ['Bash(rm -rf *)'], allow: [] }] });
    expect(Object.keys(rules.agents).sort()).toEqual(['architect', 'coder', 'deployer', 'reviewer']);

    // A person, between steps: another model, no gates, new instructions.
    p.write(
      'agents/deployer.md',
      UNGATED_DEPLOYER.replace('model: sonnet', 'model: opus').replace('You ship.', 'You ship, with care.'),
    );
    const r = p.shop(['approve', `${id}.1`, '--message', 'yes']);
    expect(r.stdout).toContain(
      `  rules kept: the files now say otherwise than run ${id} started with (agents/deployer.md: model; agents/deployer.md: gates); it keeps its own — to take the files': shop resume ${id} --accept-changes`,
    );
    // The recorded gates reach Claude Code's hook (SHOP_GATES): the push waits for a person.
    expect(r.stdout).toContain('deployer wants to run: Bash git push --force origin main');
    expect(r.code).toBe(3);
    const [deployer] = deployers(p);
    expect(deployer).toMatchObject({ model: 'sonnet' });
    // Its instructions are the file's as it is now.
    expect(deployer!.system_prompt).toContain('You ship, with care.');
    expect(p.status(id).rules!.differs).toEqual(['agents/deployer.md: model', 'agents/deployer.md: gates']);
    const text = p.shop(['status', String(id)]).stdout;
    expect(text).toContain("Rules (fixed when it started; its agents' instructions stay their files'):");
    // One line per agent (names padded to the longest, architect's), one for config{}, then what differs now.
    expect(text).toContain(
      '\n  deployer   claude   model sonnet   tools Bash(shop report:*)   gates Bash(git push --force*)\n',
    );
    expect(text).toContain(
      `\n  config{}   gates Bash(rm -rf *)\n  The files now say otherwise (not followed): agents/deployer.md: model; agents/deployer.md: gates; to take them: shop resume ${id} --accept-changes\n`,
    );
  });

  it('a workflow changed under a waiting run with patched() goes on, and holds nothing', () => {
    const p = project();
    p.write('agents/deployer.md', UNGATED_DEPLOYER);
    p.write('workflows/deploy.lua', DEPLOY);
    p.scenario({
      agents: {
        coder: [
          { status: 'NEEDS_HUMAN', reason: 'Release notes look right?' },
          { status: 'DONE', summary: 'ready' },
        ],
      },
    });
    const id = runId(p.shop(['run', 'deploy', 'x']));
    p.write(
      'workflows/deploy.lua',
      DEPLOY.replace(
        '  return run("deployer"',
        '  if patched("review-first") then run("reviewer", "review the release") end\n  return run("deployer"',
      ),
    );
    const r = p.shop(['approve', `${id}.1`, '--message', 'yes']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(
      p
        .invocations()
        .filter((i) => i.mode === 'print')
        .map((i) => i.agent),
    ).toEqual(['coder', 'coder', 'reviewer', 'deployer']);
    expect(p.status(id)).toMatchObject({ status: 'completed', held: null });
  });
});

describe("--worktree: the files the run loads are the project root's", () => {
  it("an agent's edit of the worktree's copy changes no rule; its edit of the root's holds the run", () => {
    const p = project();
    p.write('agents/deployer.md', GATED_DEPLOYER);
    p.write('workflows/deploy.lua', DEPLOY);
    for (const args of [
      ['init', '-q', '-b', 'main'],
      ['config', 'user.email', 't@example.com'],
      ['config', 'user.name', 't'],
      ['config', 'commit.gpgsign', 'false'],
      ['add', '-A'],
      ['commit', '-qm', 'init'],
    ]) {
      execFileSync('git', args, { cwd: p.dir, stdio: 'ignore' });
    }
    // The worktree is .shop/worktrees/run-<id>: its copy is agents/deployer.md there, the root's three folders up.
    p.scenario({
      agents: {
        coder: [{ status: 'DONE', summary: 'ready', write: { path: 'agents/deployer.md', text: UNGATED_DEPLOYER } }],
        deployer: [{ tool_call: FORCE, status: 'DONE' }],
      },
    });
    const copy = p.shop(['run', '--worktree', 'deploy', 'x']);
    expect(copy.code).toBe(3);
    expect(copy.stdout).toContain('deployer wants to run: Bash git push --force origin main');

    p.scenario({
      agents: {
        coder: [
          { status: 'DONE', summary: 'ready', write: { path: '../../../agents/deployer.md', text: UNGATED_DEPLOYER } },
        ],
      },
    });
    const root = p.shop(['run', '--worktree', 'deploy', 'y']);
    const id = runId(root);
    expect(root.stderr).toBe(
      `shop: run ${id} failed: agents/deployer.md changed during step ${id}.1 (coder); check the change, then shop resume ${id} --accept-changes (or restore the file and shop resume ${id})\n`,
    );
    expect(root.code).toBe(1);
  });
});
