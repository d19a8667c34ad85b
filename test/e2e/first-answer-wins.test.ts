import { describe, expect, it } from 'vitest';
import { LogJsonSchema } from '../../packages/core/src/operations/shapes.js';
import { lines, makeProject, runId, type Project } from './harness.js';

/** A time as the CLI shows it: local, with its offset. */
const LOCAL = '\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d [+-]\\d\\d:\\d\\d';

/** The first valid answer to an ask wins; every later one exits 6 naming who answered and when. */
const answered = (p: Project, id: number) =>
  LogJsonSchema.parse(JSON.parse(p.shop(['log', String(id), '--json']).stdout)).events.filter(
    (e) => e.type === 'human_answered',
  );

describe('first answer wins, per ask', () => {
  it('a second answer to an ask already answered exits 6 naming the first, even while the run waits on the next ask', () => {
    const p = makeProject();
    p.write(
      'workflows/twice.lua',
      `function workflow(p)
  local a = pause{message = "Budget?", decisions = { { id = "ok", type = "approval", prompt = "OK?" } }}
  local b = pause{message = "Date?", decisions = { { id = "ok", type = "approval", prompt = "OK?" } }}
  return tostring(a.responder) .. "|" .. tostring(b.responder)
end
`,
    );
    const id = runId(p.shop(['run', 'twice']));
    const req = JSON.parse(p.shop(['status', String(id), '--aah']).stdout).artifact.id;
    const response = (who: string, ok: boolean) =>
      JSON.stringify({
        source: { agent_id: `human:${who}` },
        content: { body: { data: { request_id: req, responses: [{ decision_id: 'ok', approved: ok }] } } },
      });
    p.write('ann.json', response('ann', true));
    p.write('ben.json', response('ben', false));
    expect(p.shop(['signal', String(id), '--response-file', 'ann.json']).code).toBe(3);
    expect(p.status(id).pending).toMatchObject({ key: '2', ask: 1 });

    const first = `^shop: ${id}\\.1 \\(run ${id} call 1\\) was already answered with decisions by ann \\(signal\\) at ${LOCAL}`;
    const ben = p.shop(['signal', String(id), '--response-file', 'ben.json']);
    expect(ben.code).toBe(6);
    expect(lines(ben.stderr)).toEqual([expect.stringMatching(new RegExp(`${first}$`))]);
    const cal = p.shop(['approve', String(id), '--call', '1', '--by', 'cal']);
    expect(cal.code).toBe(6);
    expect(lines(cal.stderr)).toEqual([
      expect.stringMatching(new RegExp(`${first}; open now: ${id}\\.2 \\(the workflow asks: Date\\?\\)$`)),
    ]);
    const byHandle = p.shop(['approve', `${id}.1`, '--by', 'cal']);
    expect({ code: byHandle.code, stderr: byHandle.stderr }).toEqual({ code: cal.code, stderr: cal.stderr });
    // Neither touched call 2.
    expect(answered(p, id).map((e) => [e.key, e.actor])).toEqual([['1', 'ann']]);
    expect(p.status(id).pending).toMatchObject({ key: '2', ask: 1 });
  });
});

describe('answers racing each other', () => {
  it('six people approve at once: exactly one wins, the other five exit 6 naming the winner (never "database is locked")', async () => {
    const p = makeProject();
    p.write('workflows/ask.lua', 'function workflow(p) return pause("Deploy?").responder end\n');
    const id = runId(p.shop(['run', 'ask']));
    const people = ['u1', 'u2', 'u3', 'u4', 'u5', 'u6'];
    const results = await Promise.all(people.map((by) => p.shopAsync(['approve', String(id), '--by', by])));
    const [winner] = answered(p, id).map((e) => e.actor);
    expect(answered(p, id)).toHaveLength(1);
    expect(p.status(id)).toMatchObject({ status: 'completed', result: winner });
    // The run's state as the loser saw it: the winner may still be resuming it (running).
    const names = new RegExp(
      `^shop: ${id}\\.1 \\(run ${id} call 1\\) was already answered approved by ${winner} \\(cli\\) at ${LOCAL}(; it is (running|completed|resuming with that answer))?$`,
    );
    for (const [i, r] of results.entries()) {
      if (people[i] === winner) expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
      else
        expect({ code: r.code, stdout: r.stdout, stderr: lines(r.stderr) }).toEqual({
          code: 6,
          stdout: '',
          stderr: [expect.stringMatching(names)],
        });
    }
  });
});
