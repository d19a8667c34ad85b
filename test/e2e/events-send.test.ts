import { describe, expect, it } from 'vitest';
import { EventSentJsonSchema, SentEventJsonSchema } from '../../packages/core/src/operations/shapes.js';
import { lines, makeProject, runId, type Project } from './harness.js';

/** shop event send / list through the built binary: idempotent ids, one-line refusals, nothing recorded on bad input. */
const listed = (p: Project) => {
  const r = p.shop(['event', 'list', '--json']);
  expect(r.code, r.stderr).toBe(0);
  return SentEventJsonSchema.array().parse(JSON.parse(r.stdout));
};

describe('shop event send and list', () => {
  it('the same --id twice records one event and says so (exit 0); list --json shows it', () => {
    const p = makeProject();
    const env = { SHOP_USER: 'ci-bot' };
    const first = p.shop(
      ['event', 'send', 'ci.finished', '--key', 'pr-42', '--data', '{"conclusion":"success"}', '--id', 'delivery-7'],
      { env },
    );
    expect(first.code, first.stderr).toBe(0);
    expect(lines(first.stdout)).toEqual([
      'recorded event 1: ci.finished (pr-42)',
      'no run waits on it now; a run started before it takes it when it waits on it',
    ]);
    const again = p.shop(
      ['event', 'send', 'ci.finished', '--key', 'pr-42', '--data', '{"conclusion":"failure"}', '--id', 'delivery-7'],
      { env },
    );
    expect(again.code, again.stderr).toBe(0);
    expect(lines(again.stdout)).toEqual([
      expect.stringMatching(
        /^event id "delivery-7" was sent before: nothing new recorded \(it is event 1, ci\.finished \(pr-42\), sent .+ by ci-bot\)$/,
      ),
    ]);
    const json = p.shop(['event', 'send', 'ci.finished', '--id', 'delivery-7', '--json'], { env });
    expect(EventSentJsonSchema.parse(JSON.parse(json.stdout))).toMatchObject({
      duplicate: true,
      event: { id: 1, data: { conclusion: 'success' } },
    });
    expect(listed(p)).toEqual([
      {
        id: 1,
        name: 'ci.finished',
        key: 'pr-42',
        data: { conclusion: 'success' },
        sent_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        sent_by: 'ci-bot',
        channel: 'cli',
        run: null,
        send_id: 'delivery-7',
      },
    ]);
    // Data from stdin; the table shows it.
    const piped = p.shop(['event', 'send', 'deploy.done', '--data-file', '-'], { input: '{"env": "prod"}\n', env });
    expect(piped.code, piped.stderr).toBe(0);
    const table = lines(p.shop(['event', 'list']).stdout);
    expect(table[0]).toMatch(/^ID +NAME +KEY +SENT +BY +CHANNEL +RUN +DATA$/);
    expect(table[1]).toMatch(/^2 +deploy\.done +- +.+ ci-bot +cli +- +\{"env":"prod"\}$/);
    expect(listed(p).map((e) => e.id)).toEqual([2, 1]);
  });

  it('a bad name, data that is not JSON or over 1 MiB: one line, exit 2, nothing recorded; an unknown --run: exit 5', () => {
    const p = makeProject();
    p.write('big.json', `"${'x'.repeat(1024 * 1024)}"`);
    const cases: [string[], number, string][] = [
      [
        ['event', 'send', 'ci finished'],
        2,
        'shop: the event name "ci finished" holds a character other than A-Z a-z 0-9 _ . : -; give a word such as ci.finished',
      ],
      [
        ['event', 'send', 'ci.finished', '--data', '{conclusion: success}'],
        2,
        'shop: --data is not JSON; give one JSON value, e.g. {"ok": true} (text goes in double quotes: "passed")',
      ],
      [
        ['event', 'send', 'ci.finished', '--data-file', 'big.json'],
        2,
        'shop: --data-file "big.json" is larger than 1 MiB, the most an event\'s data may hold; send less (a link to the rest)',
      ],
      [
        ['event', 'send', 'ci.finished', '--run', '77'],
        5,
        'shop: no run 77 to send the event to; see runs with: shop list',
      ],
    ];
    for (const [args, code, line] of cases) {
      const r = p.shop(args);
      expect([r.code, r.stderr, r.stdout]).toEqual([code, `${line}\n`, '']);
    }
    expect(listed(p)).toEqual([]);
  });

  it('is refused inside an agent step (exit 2), also with its environment cleared; nothing recorded', () => {
    const p = makeProject();
    p.write('workflows/one.lua', 'function workflow(prompt)\n  return run("coder", "work").summary\nend\n');
    const tries = [
      'try() { name=$1; shift; out=$("$@" 2>&1 </dev/null | head -n 3 | tr "\\n" " "); echo "$name $out"; }',
      'try plain sh -c \'shop event send ci.finished --data "{}"; echo "exit $?"\'',
      'try cleared env -i PATH="$PATH" sh -c \'shop event send ci.finished; echo "exit $?"\'',
    ];
    p.scenario({ agents: { coder: [{ sh: tries.join('\n'), via: 'report', summary: 'tried' }] } });
    const r = p.shop(['run', 'one', 'x']);
    expect(r.code, r.stderr).toBe(0);
    runId(r);
    const said = lines(p.invocations().find((i) => i.agent === 'coder')!.shell!.stdout);
    expect(said).toEqual([
      expect.stringMatching(
        /^plain shop: shop event send speaks for the world outside the run and cannot run inside an agent step \(SHOP_AGENT=coder\); agents report with shop report exit 2 ?$/,
      ),
      expect.stringMatching(
        /^cleared shop: shop event send speaks for the world outside the run and cannot run inside an agent step \(.+\); agents report with shop report exit 2 ?$/,
      ),
    ]);
    expect(listed(p)).toEqual([]);
  });
});
