import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { usePgCluster } from '../pg-cluster-hooks.js';
import { LogJsonSchema, RunDetailJsonSchema, WorkersJsonSchema } from '../../packages/core/src/operations/shapes.js';
import { makeProject, runId, until, type Background, type Project } from './harness.js';

/**
 * One project checked out at two paths (two machines whose checkouts sit in different places),
 * sharing one store: PostgreSQL, or a SQLite file in one SHOP_HOME both checkouts point at. A
 * run started in checkout A is driven on by a worker in checkout B, under B; a worker whose
 * checkout lacks a run's workflow leaves it to the others and says so.
 */
const cluster = usePgCluster();

const BUILD = `function workflow(p)
  local r = run("coder", "build the page")
  local here = sh("pwd")
  return r.status .. "|" .. here.stdout:gsub("%s+$", "")
end
`;
const DEPLOY = 'function workflow(p) local r = run("deployer", "ship it") return r.status end\n';

const copies: string[] = [];
const workers: Background[] = [];
afterEach(async () => {
  for (const w of workers.splice(0)) {
    w.child.kill('SIGTERM');
    await w.exited;
  }
});
afterAll(() => {
  for (const dir of copies.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** The project's checkout copied to another path, as another machine would have it (its own .shop/project-id with it). */
function checkoutCopy(p: Project): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'shop-e2e-checkout-b-')));
  copies.push(dir);
  // The project's identity, as a clone would share it (its first commit) or a copied .shop/project-id.
  writeFileSync(join(p.dir, '.shop', 'project-id'), 'id:two-checkouts-of-one-project\n');
  cpSync(join(p.dir, 'workflows'), join(dir, 'workflows'), { recursive: true });
  cpSync(join(p.dir, 'agents'), join(dir, 'agents'), { recursive: true });
  mkdirSync(join(dir, '.shop'));
  cpSync(join(p.dir, '.shop', 'project-id'), join(dir, '.shop', 'project-id'));
  return dir;
}

/** Each checkout's environment: on PostgreSQL a machine each; on SQLite one SHOP_HOME (the shared store file). */
async function stores(store: 'sqlite' | 'postgres', p: Project, name: string) {
  if (store === 'sqlite') {
    const shared = { SHOP_HOME: join(p.dir, 'shared-home') };
    return { a: { ...shared, SHOP_HOSTNAME: 'machine-a' }, b: { ...shared, SHOP_HOSTNAME: 'machine-b' } };
  }
  const url = await cluster.createDatabase(name);
  const machine = (m: string) => ({
    SHOP_DATABASE_URL: url,
    SHOP_HOME: join(p.dir, `home-${m}`),
    CLAUDE_CONFIG_DIR: join(p.dir, `claude-${m}`),
    SHOP_HOSTNAME: m,
  });
  return { a: machine('machine-a'), b: machine('machine-b') };
}

function watch(p: Project, cwd: string, env: NodeJS.ProcessEnv): Background {
  const bg = p.spawnShop(['watch', '--json'], { env, cwd });
  workers.push(bg);
  return bg;
}
const said = (bg: Background, type: string, run: number) =>
  bg
    .output()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { type: string; run?: number; reason?: string })
    .filter((l) => l.type === type && l.run === run);

for (const store of ['sqlite', 'postgres'] as const) {
  describe(`checkouts at two paths sharing one ${store} store`, () => {
    it('a run started in checkout A, answered, is driven on by a worker in checkout B: its agent, files and session under B', async () => {
      const p = makeProject();
      p.write('workflows/build.lua', BUILD);
      p.scenario({
        agents: {
          coder: [
            { status: 'NEEDS_HUMAN', reason: 'Which colour?', awaiting: 'input' },
            { status: 'DONE', summary: 'built', write: { path: 'page.html', text: '<h1>blue</h1>' } },
          ],
        },
      });
      const b = checkoutCopy(p);
      const env = await stores(store, p, 'two_paths_drive');
      const status = (id: number) =>
        RunDetailJsonSchema.parse(JSON.parse(p.shop(['status', String(id), '--json'], { env: env.a }).stdout));

      const started = p.shop(['run', 'build'], { env: env.a });
      expect(started.code, started.stdout + started.stderr).toBe(3);
      const id = runId(started);
      expect(p.invocations()[0]!.cwd).toBe(p.dir);

      const worker = watch(p, b, env.b);
      await until('the worker in B to hold the run', () => said(worker, 'took', id).length > 0, 30_000);
      const answered = p.shop(['answer', `${id}.1`, 'blue'], { env: env.a });
      expect(answered.code, answered.stdout + answered.stderr).toBe(0);
      await until('the run to complete', () => status(id).status === 'completed', 60_000);

      const resumed = p.invocations()[1]!;
      expect(resumed).toMatchObject({ cwd: b, resumed: true });
      // The session was found under B's own project folder of Claude Code (restored there from the store).
      expect(resumed.remembered).toBeGreaterThan(0);
      expect(resumed.transcript).toContain(`/projects/${b.replace(/[^a-zA-Z0-9]/g, '-')}/`);
      expect(readFileSync(join(b, 'page.html'), 'utf8')).toBe('<h1>blue</h1>');
      expect(existsSync(join(p.dir, 'page.html'))).toBe(false);
      // Driven under B (sh's pwd); each checkout reads the run's workspace as its own.
      expect(status(id)).toMatchObject({ status: 'completed', result: `DONE|${b}`, workspace: p.dir });
      const fromB = p.shop(['status', String(id), '--json'], { env: env.b, cwd: b });
      expect(RunDetailJsonSchema.parse(JSON.parse(fromB.stdout)).workspace).toBe(b);
      const events = LogJsonSchema.parse(
        JSON.parse(p.shop(['log', String(id), '--json'], { env: env.a }).stdout),
      ).events;
      expect(events.filter((e) => e.type === 'session_restored')).toHaveLength(1);
    });

    it('a worker whose checkout lacks the workflow leaves the run, says so in shop workers, and another worker completes it', async () => {
      const p = makeProject();
      p.write('workflows/deploy.lua', DEPLOY);
      p.scenario({ agents: { deployer: [{ status: 'DONE', summary: 'shipped' }] } });
      const b = checkoutCopy(p);
      rmSync(join(b, 'workflows', 'deploy.lua'));
      const env = await stores(store, p, 'two_paths_leave');

      const lacking = watch(p, b, env.b);
      await until('the worker in B to watch', () => /"type":"watching"/.test(lacking.output()), 30_000);
      const queued = p.shop(['run', 'deploy', '--detach'], { env: env.a });
      expect(queued.code, queued.stdout + queued.stderr).toBe(0);
      const id = Number(/^run (\d+) queued/m.exec(queued.stdout)?.[1]);
      await until('the worker in B to leave the run', () => said(lacking, 'left', id).length > 0, 30_000);
      expect(said(lacking, 'left', id)).toEqual([
        expect.objectContaining({ reason: 'this checkout has no workflows/deploy.lua' }),
      ]);

      const listed = async () => {
        const r = p.shop(['workers', '--json'], { env: env.a });
        return WorkersJsonSchema.parse(JSON.parse(r.stdout));
      };
      await until('shop workers to say what B leaves', async () => (await listed())[0]?.left.length === 1, 30_000);
      expect((await listed())[0]).toMatchObject({
        host: 'machine-b',
        left: [{ run: id, workflow: 'deploy', reason: 'this checkout has no workflows/deploy.lua' }],
      });
      const text = p.shop(['workers'], { env: env.a }).stdout;
      expect(text).toMatch(
        new RegExp(
          `^machine-b \\(pid \\d+\\) leaves run ${id} \\(deploy\\) to others: this checkout has no workflows/deploy\\.lua$`,
          'm',
        ),
      );
      expect(
        RunDetailJsonSchema.parse(JSON.parse(p.shop(['status', String(id), '--json'], { env: env.a }).stdout)).status,
      ).toBe('queued');

      const able = watch(p, p.dir, env.a);
      await until('the worker in A to complete the run', () => said(able, 'outcome', id).length > 0, 60_000);
      const events = LogJsonSchema.parse(
        JSON.parse(p.shop(['log', String(id), '--json'], { env: env.a }).stdout),
      ).events;
      // B never took it: one take, A's.
      expect(events.filter((e) => e.type === 'run_taken').map((e) => e.data)).toEqual([
        expect.objectContaining({ host: 'machine-a' }),
      ]);
      expect(said(lacking, 'left', id)).toHaveLength(1);
      expect(p.invocations().map((i) => i.cwd)).toEqual([p.dir]);
    });
  });
}
