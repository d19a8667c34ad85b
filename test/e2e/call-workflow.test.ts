import { afterEach, describe, expect, it } from 'vitest';
import { usePgCluster } from '../pg-cluster-hooks.js';
import { killLeftovers, projectOn, runId, startWorker, stopWorker, trail, until } from './harness.js';

/**
 * Runs calling runs through the built binary, on SQLite and PostgreSQL: call_workflow starts a
 * child run (listed, with its parent) and hands its end back as a table; a child's ask shows
 * with its own handle and the parent exits 3; answering it drives the child, then the parent.
 */

afterEach(killLeftovers);
const cluster = usePgCluster();

const PARENT = `function workflow(prompt)
  local r = call_workflow("child", "hello " .. prompt)
  log("child " .. r.run_id .. " " .. r.status)
  return {child = r.run_id, status = r.status, got = r.result, reason = r.reason, parent = context().parent}
end
`;
const CHILD = 'function workflow(prompt)\n  return {said = prompt, parent = context().parent}\nend\n';
const ASKING_CHILD = 'function workflow(prompt)\n  pause("ok to go on?")\n  return prompt .. "!"\nend\n';

const project = (store: 'sqlite' | 'postgres') => projectOn(store, cluster, 'children');

describe.each(['sqlite', 'postgres'] as const)('call_workflow on %s', (store) => {
  it('a child that completes hands its result back: {run_id, status = "completed", result}; the child is listed with its parent', async () => {
    const p = await project(store);
    p.write('workflows/parent.lua', PARENT);
    p.write('workflows/child.lua', CHILD);
    const r = p.shop(['run', 'parent', 'world']);
    expect([r.code, r.stderr]).toEqual([0, '']);
    const id = runId(r);
    const child = id + 1;
    expect(r.stdout).toContain(`log: child ${child} completed`);
    expect(p.status(id)).toMatchObject({
      status: 'completed',
      parent: null,
      result: { child, status: 'completed', got: { said: 'hello world', parent: id } },
    });
    // The child is a run of its own: listed, its parent named (a column and --json).
    expect(p.status(child)).toMatchObject({ spec: 'child', status: 'completed', prompt: 'hello world', parent: id });
    expect(p.list().map((x) => [x.id, x.parent])).toEqual([
      [child, id],
      [id, null],
    ]);
    expect(p.shop(['list']).stdout).toMatch(new RegExp(`\\n${child} +child ↳ of ${id} +completed`));
    expect(trail(p, child)[0]).toMatchObject({
      type: 'run_started',
      actor: `run ${id}`,
      data: { parent: id, parent_key: '1' },
    });
    expect(trail(p, id).map((e) => e.type)).toEqual(expect.arrayContaining(['wait_started', 'child_ended']));
    // Replaying the parent starts nothing: its log hands the child's table back.
    expect(p.shop(['replay', String(id)]).code).toBe(0);
    expect(p.list()).toHaveLength(2);
  });

  it("a child's ask: the parent exits 3 showing the child's handle; one `shop approve <child>.<key>` resumes the child, then the parent (exit 0)", async () => {
    const p = await project(store);
    p.write('workflows/parent.lua', PARENT);
    p.write('workflows/child.lua', ASKING_CHILD);
    const r = p.shop(['run', 'parent', 'world']);
    expect([r.code, r.stderr]).toEqual([3, '']);
    const id = runId(r);
    const child = id + 1;
    expect(r.stdout).toContain(`run ${id} waits on run ${child} (child), which is waiting for a person`);
    expect(r.stdout).toContain(`shop approve ${child}.1`);
    expect(p.status(id)).toMatchObject({
      status: 'waiting',
      waiting_for: `run ${child} (child)`,
      waiting_on: [{ kind: 'run', key: '1', run_id: child }],
      children: [{ id: child, spec: 'child', key: '1', status: 'waiting_human' }],
    });
    // shop status names the link both ways.
    expect(p.shop(['status', String(id)]).stdout).toContain(`Children: run ${child} (child) waiting_human`);
    expect(p.shop(['status', String(child)]).stdout).toContain(`Parent: run ${id} (its call 1 started this run)`);
    const inbox = JSON.parse(p.shop(['inbox', '--json']).stdout);
    expect(inbox).toEqual([expect.objectContaining({ run: child, handle: `${child}.1`, parent: id })]);
    expect(p.shop(['inbox']).stdout).toMatch(new RegExp(`\\n${child} +child ↳ of ${id} +1 `));

    const a = p.shop(['approve', `${child}.1`]);
    expect([a.code, a.stderr]).toEqual([0, '']);
    expect(a.stdout).toContain(`run ${id} completed`);
    expect(p.status(child).status).toBe('completed');
    expect(p.status(id)).toMatchObject({
      status: 'completed',
      result: { child, status: 'completed', got: 'hello world!' },
    });
  });

  it("`shop stop` of the parent ends the child with it (both stopped, each trail says so); a child stopped alone raises at the call's line, pcall handles it", async () => {
    const p = await project(store);
    p.write('workflows/parent.lua', PARENT);
    p.write('workflows/child.lua', ASKING_CHILD);
    const id = runId(p.shop(['run', 'parent', 'world']));
    const child = id + 1;
    const s = p.shop(['stop', String(id), '--reason', 'not now']);
    expect([s.code, s.stderr]).toEqual([0, '']);
    expect(s.stdout).toContain(`its child run ${child} (child) stopped with it`);
    expect(p.status(id)).toMatchObject({ status: 'stuck', reason: 'not now' });
    expect(p.status(child)).toMatchObject({ status: 'stuck', reason: `its parent run ${id} was stopped: not now` });
    expect(trail(p, child).filter((e) => e.type === 'stop_requested' || e.type === 'stopped')).toEqual([
      expect.objectContaining({ type: 'stop_requested', data: expect.objectContaining({ parent: id }) }),
      expect.objectContaining({ type: 'stopped' }),
    ]);

    p.write(
      'workflows/careful.lua',
      `function workflow()
  local ok, err = pcall(function() return call_workflow("child", "a") end)
  log("handled: " .. tostring(err))
  return call_workflow("child", "b").status
end
`,
    );
    const c = runId(p.shop(['run', 'careful']));
    const first = p.shop(['stop', String(c + 1), '--reason', 'wrong one']);
    expect(first.stdout).toContain(`its parent run ${c} (careful) went on: waiting`);
    expect(p.shop(['log', String(c)]).stdout).toContain(
      `handled: careful.lua:2: run ${c + 1} (child) was stopped: wrong one`,
    );
    const second = p.shop(['stop', String(c + 2), '--reason', 'no']);
    expect(second.stdout).toContain(
      `its parent run ${c} (careful) went on: failed: careful.lua:4: run ${c + 2} (child) was stopped: no`,
    );
  });
});

describe('call_workflow taken over on PostgreSQL', () => {
  it('a driver killed (kill -9) while its child waits: two workers take over at once, the parent still has one child, and it completes once the child is answered', async () => {
    const p = await project('postgres');
    p.env.SHOP_LEASE_SECONDS = '2';
    p.write('workflows/parent.lua', PARENT);
    p.write('workflows/child.lua', ASKING_CHILD);
    const driver = p.spawnShop(['run', 'parent', 'world', '--wait']);
    await until('the child to ask', () => driver.output().includes('waiting for a person: ok to go on?'));
    const id = runId(driver.output());
    const child = id + 1;
    driver.child.kill('SIGKILL');
    await driver.exited;
    await new Promise((res) => setTimeout(res, 2500));

    const [a, b] = await Promise.all([startWorker(p), startWorker(p)]);
    // The child (an ask open) is taken; the parent needs no owner until its child ends, and then both workers race for it.
    await until('the child to be taken', () => (a.output() + b.output()).includes(`run ${child} (`));
    const answered = p.shop(['approve', `${child}.1`]);
    expect([answered.code, answered.stderr]).toEqual([0, '']);
    await until('the parent to complete', () => p.status(id).status === 'completed', 20_000);
    expect(p.status(id).result).toMatchObject({ child, status: 'completed', got: 'hello world!' });
    expect(p.list().map((r) => [r.id, r.parent, r.status])).toEqual([
      [child, id, 'completed'],
      [id, null, 'completed'],
    ]);
    expect(trail(p, id).filter((e) => e.type === 'child_ended')).toHaveLength(1);
    expect(await stopWorker(a)).toBe(0);
    expect(await stopWorker(b)).toBe(0);
  });
});
