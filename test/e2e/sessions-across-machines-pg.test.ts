import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { usePgCluster } from '../pg-cluster-hooks.js';
import { LogJsonSchema, RunDetailJsonSchema } from '../../packages/core/src/operations/shapes.js';
import { makeProject, runId, type Project } from './harness.js';

/**
 * Two machines sharing one PostgreSQL store and nothing else: each its own SHOP_HOME (signals,
 * logs), its own Claude Code config folder (transcripts) and its own name.
 */
const cluster = usePgCluster();

const WORKFLOW =
  'function workflow(p) local r = run("coder", "add the users table") return r.status .. "|" .. (r.summary or "") end\n';

describe('sessions across machines on PostgreSQL (two SHOP_HOMEs, one database)', () => {
  it("machine B takes the feedback to A's agent: the session and the agent's report both come through the store", async () => {
    const url = await cluster.createDatabase('sessions_two_homes');
    const p: Project = makeProject();
    p.write('workflows/migrate.lua', WORKFLOW);
    p.scenario({
      agents: {
        coder: [
          { status: 'NEEDS_HUMAN', reason: 'Approve the migration?', awaiting: 'approval' },
          // B's agent reports with shop report, and its file is gone: only the store has the report.
          { status: 'DONE', summary: 'reworked', via: 'report', drop_file: true },
        ],
      },
    });
    const on = (name: string) => ({
      SHOP_DATABASE_URL: url,
      SHOP_HOME: join(p.dir, `home-${name}`),
      CLAUDE_CONFIG_DIR: join(p.dir, `claude-${name}`),
      SHOP_HOSTNAME: name,
    });
    const a = on('machine-a');
    const b = on('machine-b');
    const status = (env: NodeJS.ProcessEnv, id: number) =>
      RunDetailJsonSchema.parse(JSON.parse(p.shop(['status', String(id), '--json'], { env }).stdout));

    const started = p.shop(['run', 'migrate'], { env: a });
    expect(started.stderr).toBe('');
    expect(started.code).toBe(3);
    const id = runId(started);
    const first = p.invocations()[0];
    expect(first.signal_file!.startsWith(join(a.SHOP_HOME, 'signals') + '/')).toBe(true);
    expect(status(b, id).sessions).toEqual([expect.objectContaining({ call: '1', host: 'machine-a', kept: 'store' })]);

    const r = p.shop(['reject', `${id}.1`, 'add a down migration'], { env: b });
    expect(r.code, `${r.stdout}${r.stderr}`).toBe(0);
    expect(r.stderr).toBe('');
    const again = p.invocations()[1];
    expect(again).toMatchObject({ session_id: first.session_id, resumed: true, remembered: 2 });
    expect(again.transcript!.startsWith(b.CLAUDE_CONFIG_DIR + '/')).toBe(true);
    expect(readFileSync(again.transcript!, 'utf8').startsWith(readFileSync(first.transcript!, 'utf8'))).toBe(true);
    expect(again.signal_file!.startsWith(join(b.SHOP_HOME, 'signals') + '/')).toBe(true);
    expect(existsSync(again.signal_file!)).toBe(false);

    const done = status(a, id);
    expect(done).toMatchObject({ status: 'completed', result: 'DONE|reworked' });
    expect(done.sessions).toEqual([expect.objectContaining({ call: '1', host: 'machine-b', kept: 'store' })]);
    const events = LogJsonSchema.parse(JSON.parse(p.shop(['log', String(id), '--json'], { env: a }).stdout)).events;
    expect(events.filter((e) => e.type === 'session_restored')).toEqual([
      expect.objectContaining({ key: '1', data: expect.objectContaining({ host: 'machine-b', from: 'machine-a' }) }),
    ]);
  });
});
