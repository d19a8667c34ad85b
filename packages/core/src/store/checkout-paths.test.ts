import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkoutPaths, withCheckoutPaths } from './checkout-paths.js';
import { exec, newRun, T } from './contract/fixtures.js';
import { queued } from './contract/queue.js';
import { openSqliteStore } from './sqlite/sqlite-store.js';
import { tempDir } from '../testing/temp-dir.js';

describe('checkoutPaths', () => {
  const p = checkoutPaths('/srv/a/shop-project');

  it('keeps a path inside the checkout relative to it, and one outside as it is', () => {
    expect(p.stored('/srv/a/shop-project')).toBe('.');
    expect(p.stored('/srv/a/shop-project/workflows/feature.lua')).toBe('workflows/feature.lua');
    expect(p.stored('/srv/a/shop-project/.shop/worktrees/run-3')).toBe('.shop/worktrees/run-3');
    expect(p.stored('/srv/a/shop-project-2/x')).toBe('/srv/a/shop-project-2/x');
    expect(p.stored('/srv/a/..data')).toBe('/srv/a/..data');
    expect(p.stored('/home/ann/.shop-home/worktrees/run-3')).toBe('/home/ann/.shop-home/worktrees/run-3');
  });

  it('reads a relative path under this checkout, and an absolute one (recorded before) as it is', () => {
    const b = checkoutPaths('/home/bob/code/shop-project');
    expect(b.local('.')).toBe('/home/bob/code/shop-project');
    expect(b.local('workflows/feature.lua')).toBe('/home/bob/code/shop-project/workflows/feature.lua');
    expect(b.local('/srv/a/shop-project/workflows/feature.lua')).toBe('/srv/a/shop-project/workflows/feature.lua');
  });
});

describe('withCheckoutPaths: one store, two checkouts at different paths', () => {
  const dir = tempDir('shop-checkout-paths-');
  const file = join(dir, 'shop.db');
  const rootA = '/srv/a/project';
  const rootB = '/home/bob/project';
  const onA = withCheckoutPaths(
    openSqliteStore(file, () => 1_000),
    rootA,
  );
  const onB = withCheckoutPaths(
    openSqliteStore(file, () => 1_000),
    rootB,
  );
  afterAll(async () => {
    await onA.close();
    await onB.close();
  });

  it('a run started in checkout A is recorded relative to it and read under checkout B', async () => {
    const run = await onA.createRun(newRun({ workflowPath: `${rootA}/workflows/feature.lua`, workspace: rootA }));
    expect(run).toMatchObject({ workflowPath: `${rootA}/workflows/feature.lua`, workspace: rootA });
    await onA.startExecution(T, exec(run.id, '1', { cwd: rootA }));
    await onA.setWorkspace(T, run.id, `${rootA}/.shop/worktrees/run-1`, 'shop/run-1');

    const raw = new Database(file, { readonly: true });
    expect(raw.prepare('SELECT workflow_path, workspace FROM runs WHERE id = ?').get(run.id)).toEqual({
      workflow_path: 'workflows/feature.lua',
      workspace: '.shop/worktrees/run-1',
    });
    expect(raw.prepare('SELECT cwd FROM executions WHERE run_id = ?').pluck().get(run.id)).toBe('.');
    raw.close();

    expect(await onB.getRun(run.id)).toMatchObject({
      workflowPath: `${rootB}/workflows/feature.lua`,
      workspace: `${rootB}/.shop/worktrees/run-1`,
    });
    expect((await onB.getExecution(run.id, '1'))!.cwd).toBe(rootB);
    expect((await onB.loadExecutions(run.id)).map((e) => e.cwd)).toEqual([rootB]);
    const [listed] = await onB.listRuns();
    expect(listed!.workspace).toBe(`${rootB}/.shop/worktrees/run-1`);
    await onA.markWaiting(T, run.id, '1', { waitingFor: 'Which colour?', awaiting: 'input' }, 'waiting_human');
    const [asked] = await onB.listWaiting();
    expect([asked!.run.workspace, asked!.execution.cwd]).toEqual([`${rootB}/.shop/worktrees/run-1`, rootB]);
    expect((await onB.listRuns())[0]!.waiting!.cwd).toBe(rootB);
  });

  it('queued runs and a claim filter see local paths; a run recorded with absolute paths reads as it was', async () => {
    const { run } = await onA.queueRun(queued({ workflowPath: `${rootA}/workflows/deploy.lua`, workspace: rootA }));
    const seen: string[] = [];
    const took = await onB.claimQueuedRuns(
      { token: 'w', host: 'b', pid: 2, pidStart: null },
      60_000,
      1,
      undefined,
      (r) => {
        seen.push(r.workflowPath);
        return true;
      },
    );
    expect(seen).toEqual([`${rootB}/workflows/deploy.lua`]);
    expect(took[0]).toMatchObject({ id: run.id, workspace: rootB });

    const plain = openSqliteStore(file, () => 1_000);
    const old = await plain.createRun(
      newRun({ workflowPath: '/old/place/workflows/feature.lua', workspace: '/old/place' }),
    );
    await plain.close();
    expect(await onB.getRun(old.id)).toMatchObject({
      workflowPath: '/old/place/workflows/feature.lua',
      workspace: '/old/place',
    });
  });
});
