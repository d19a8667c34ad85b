import { describe, expect, it } from 'vitest';
import { LogJsonSchema } from '../../packages/core/src/operations/shapes.js';
import { makeProject, runId, shopBin, type Project } from './harness.js';
import { Terminal } from './terminal.js';

/** A bare run id on a terminal: the question is shown and confirmed before anything is recorded. */
const shopCommand = (args: string) => `'${process.execPath}' '${shopBin}' ${args}`;
const answers = (p: Project, id: number) =>
  LogJsonSchema.parse(JSON.parse(p.shop(['log', String(id), '--json']).stdout)).events.filter(
    (e) => e.type === 'human_answered',
  );

function atTheAsk(): { p: Project; id: number } {
  const p = makeProject();
  p.write('workflows/ship.lua', 'function workflow(p) return run("deployer", "ship").status end\n');
  p.scenario({ agents: { deployer: [{ status: 'NEEDS_HUMAN', reason: 'Deploy to prod?', awaiting: 'approval' }] } });
  const id = runId(p.shop(['run', 'ship']));
  return { p, id };
}

async function session(p: Project, args: string, work: (term: Terminal) => Promise<void>): Promise<string> {
  const term = new Terminal(p, shopCommand(args));
  try {
    await work(term);
    return await term.waitFor(/\[exit \d+\]/);
  } finally {
    term.kill();
  }
}

describe('a bare run id on a terminal', () => {
  it('shows the question and asks; "n" records nothing and exits 0, the ask still open', async () => {
    const { p, id } = atTheAsk();
    const screen = await session(p, `approve ${id}`, async (term) => {
      await term.waitFor(`approve ${id}.1? [y/n]`);
      term.type('n');
    });
    expect(screen).toContain(`run ${id} waits on ${id}.1 — deployer asks (approval): Deploy to prod?`);
    expect(screen).toContain(`nothing recorded; ${id}.1 still waits`);
    expect(screen).toContain('[exit 0]');
    expect(answers(p, id)).toEqual([]);
    expect(p.status(id)).toMatchObject({ status: 'waiting_human', pending: { key: '1', ask: 1 } });
  });

  it('"y" answers the ask it showed', async () => {
    const { p, id } = atTheAsk();
    const screen = await session(p, `approve ${id} --by ann`, async (term) => {
      await term.waitFor(`approve ${id}.1? [y/n]`);
      term.type('y');
    });
    expect(screen).toContain(`run ${id} call 1 (${id}.1): answered approved by ann`);
    expect(screen).toContain('[exit 0]');
    expect(answers(p, id)).toEqual([
      expect.objectContaining({
        key: '1',
        actor: 'ann',
        data: expect.objectContaining({ ask: 1, verdict: 'approved' }),
      }),
    ]);
    expect(p.status(id).status).toBe('completed');
  });

  it('--yes skips the question (and says which ask it answered); a handle needs no confirmation', async () => {
    const { p, id } = atTheAsk();
    const screen = await session(p, `approve ${id} --yes --by ann`, async () => {});
    expect(screen).not.toContain('[y/n]');
    expect(screen).toContain(`run ${id}'s one open ask: ${id}.1 — deployer asks (approval): Deploy to prod?`);
    expect(p.status(id).status).toBe('completed');

    const other = atTheAsk();
    const byHandle = await session(other.p, `reject ${other.id}.1 "not today" --by ann`, async () => {});
    expect(byHandle).not.toContain('[y/n]');
    expect(byHandle).toContain(`run ${other.id} call 1 (${other.id}.1): answered rejected by ann`);
  });
});
