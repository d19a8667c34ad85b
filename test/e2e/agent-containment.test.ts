import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { lines, makeProject, projectProcesses, runId, trail, until, type Project } from './harness.js';

/**
 * Agents can't answer for themselves: every process an agent step started ends with the step
 * (a PID namespace where the machine allows one, else its group and its SHOP_STEP marker), and
 * the commands that are a person's refuse inside a step by any sign the machine shows — not only
 * SHOP_AGENT. Through the built binary and the Claude stand-in (its `leave` and `sh` fields run
 * commands as the agent's Bash tool would).
 */

const FORCE = { name: 'Bash', input: { command: 'git push --force origin main' } };
/** The issue's repro: left behind before the gated call, it approves that call once the step has deferred it. */
const SELF_APPROVE = '( sleep 2; env -u SHOP_AGENT shop approve "$SHOP_RUN_ID.$SHOP_CALL" --by ann ) &';

/** What the machine gives agents unless told otherwise: a PID namespace when unshare works here. */
const namespaces = (() => {
  const flags = process.getuid?.() === 0 ? [] : ['--map-current-user'];
  return spawnSync('unshare', [...flags, '--pid', '--fork', '--kill-child', 'true']).status === 0;
})();
const MODES = [
  {
    name: namespaces ? 'in a PID namespace' : 'where no PID namespace can be made',
    env: {},
    containment: namespaces ? 'pid-namespace' : 'process-group',
  },
  {
    name: 'by process group and marker (SHOP_AGENT_CONTAINMENT=process-group)',
    env: { SHOP_AGENT_CONTAINMENT: 'process-group' },
    containment: 'process-group',
  },
];

function gatedCoder(leave: string): Project {
  const p = makeProject();
  p.write(
    'agents/coder.md',
    '---\nallowed_tools: ["Bash(shop report:*)"]\ngates: ["Bash(git push --force*)"]\n---\nYou ship code.\n',
  );
  p.write('workflows/ship.lua', 'function workflow(prompt)\n  return run("coder", "Ship it").summary\nend\n');
  p.scenario({ agents: { coder: [{ leave, tool_call: FORCE, status: 'DONE' }] } });
  return p;
}

/** This project's processes still running after `ms` (polled: a driver's agent host leaves a moment after it). */
async function leftAfter(p: Project, ms: number) {
  await until("the step's processes to end", () => !projectProcesses(p).length, ms).catch(() => undefined);
  return projectProcesses(p);
}

describe.each(MODES)('an agent step $name', ({ env, containment }) => {
  it('a background shop approve left before its gated call does not answer; it is gone when the step ends', async () => {
    const p = gatedCoder(SELF_APPROVE);
    const r = p.shop(['run', 'ship', 'x'], { env });
    expect(r.code, r.stderr).toBe(3);
    const id = runId(r);
    // No process of the project is left (the leftover among them, by its environment): none can approve later.
    expect(await leftAfter(p, 1500)).toEqual([]);
    const events = trail(p, id);
    expect(events.filter((e) => e.type === 'human_answered')).toEqual([]);
    expect(events.find((e) => e.type === 'agent_started')?.data).toMatchObject({ containment });
    expect(p.status(id)).toMatchObject({ status: 'waiting_human' });
    // A person's approve still works, and the call runs.
    const approved = p.shop(['approve', `${id}.1`, '--by', 'ann'], { env });
    expect(approved.code, approved.stderr).toBe(0);
    expect(lines(approved.stdout).at(-1)).toBe(`run ${id} completed: "ran: git push --force origin main"`);
    expect(
      trail(p, id)
        .filter((e) => ['tool_deferred', 'human_answered', 'tool_decided'].includes(e.type))
        .map((e) => [e.type, e.actor, e.channel]),
    ).toEqual([
      ['tool_deferred', 'coder', 'agent'],
      ['human_answered', 'ann', 'cli'],
      ['tool_decided', 'ann', 'cli'],
    ]);
  });

  it("a leftover that left the agent's process group (setsid) is gone when the step ends", async () => {
    const p = makeProject();
    p.write('workflows/one.lua', 'function workflow(prompt)\n  return run("coder", "work").summary\nend\n');
    p.scenario({ agents: { coder: [{ leave: "setsid sh -c 'sleep 300' &", summary: 'done' }] } });
    const r = p.shop(['run', 'one', 'x'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(await leftAfter(p, 1500)).toEqual([]);
  });
});

describe("the commands that are a person's, run from inside an agent step without SHOP_AGENT", () => {
  it('are refused (exit 2, naming what gave the step away); shop report still works there, and a person still answers', async () => {
    const p = makeProject();
    // A pause waits in one branch while the coder works in the other: its shell goes for the pause.
    p.write(
      'workflows/both.lua',
      'function workflow(prompt)\n  local ok, work = parallel(function() return pause("Ship it?") end, function() return run("coder", "work") end)\n  return work.summary\nend\n',
    );
    const tries = [
      'H="$SHOP_RUN_ID.1/1/1"',
      'try() { name=$1; shift; out=$("$@" 2>&1 </dev/null | head -n 3 | tr "\\n" " "); echo "$name $out"; }',
      'try approve env -i PATH="$PATH" sh -c \'shop approve "$0" --by ann; echo "exit $?"\' "$H"',
      'try unset-agent env -u SHOP_AGENT sh -c \'shop approve "$0" --by ann; echo "exit $?"\' "$H"',
      'try access env -i PATH="$PATH" sh -c \'shop access add x; echo "exit $?"\'',
      'try serve env -i PATH="$PATH" sh -c \'timeout 5 shop serve --port 0; echo "exit $?"\'',
      'try claim env -i PATH="$PATH" sh -c \'shop claim "$0" --by ann; echo "exit $?"\' "$H"',
    ];
    const expected = [
      ['approve', 'shop approve', /its ancestor process \d+ \(.+\) has SHOP_AGENT=coder/],
      ['unset-agent', 'shop approve', /SHOP_RUN_ID=\d+/],
      ['access', 'shop access', /its ancestor process \d+ \(.+\) has SHOP_AGENT=coder/],
      ['serve', 'shop serve', /its ancestor process \d+ \(.+\) has SHOP_AGENT=coder/],
      ['claim', 'shop claim', /its ancestor process \d+ \(.+\) has SHOP_AGENT=coder/],
    ] as const;
    // Double-forked out of its group with its environment cleared: reparented to the step's
    // init, which gives it away (where a PID namespace holds the step).
    if (namespaces) {
      tries.push(
        '( setsid env -i PATH="$PATH" sh -c \'shop approve "$0" --by ann > o.txt 2>&1; c=$?; echo "orphan $(head -n 1 o.txt) exit $c" > orphan.out\' "$H" & )',
        'i=0; while [ ! -s orphan.out ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done; cat orphan.out',
      );
    }
    const orphan = [
      'orphan',
      'shop approve',
      /its ancestor process \d+ is an agent step's init \(shop-step-init\)/,
    ] as const;
    p.scenario({ agents: { coder: [{ sh: tries.join('\n'), via: 'report', summary: 'reported from inside' }] } });
    const r = p.shop(['run', 'both', 'x']);
    const said = lines(p.invocations().find((i) => i.agent === 'coder')!.shell!.stdout);
    expect(said).toEqual(
      [...expected, ...(namespaces ? [orphan] : [])].map(([name, what, evidence]) =>
        expect.stringMatching(
          new RegExp(
            `^${name} shop: ${what} [^(]*cannot run inside an agent step \\(${evidence.source}.*\\); agents report with shop report exit 2 ?$`,
          ),
        ),
      ),
    );
    // The pause still waits for a person.
    expect(r.code, r.stderr).toBe(3);
    const id = runId(r);
    // Nothing a person does happened: no answer, no claim, no login minted; the agent's own report went in.
    const events = trail(p, id);
    expect(events.filter((e) => ['human_answered', 'claimed'].includes(e.type))).toEqual([]);
    expect(JSON.parse(p.shop(['access', 'list', '--json']).stdout)).toEqual([]);
    expect(p.status(id).executions.find((e) => e.key === '1/2/1')).toMatchObject({ status: 'completed' });
    const approved = p.shop(['approve', `${id}.1/1/1`]);
    expect(approved.code, approved.stderr).toBe(0);
    expect(lines(approved.stdout).at(-1)).toBe(`run ${id} completed: "reported from inside"`);
  });
});
