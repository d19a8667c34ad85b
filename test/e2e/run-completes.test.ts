import { describe, expect, it } from 'vitest';
import { RunDetailJsonSchema } from '../../packages/core/src/operations/shapes.js';
import { makeProject, runId } from './harness.js';

describe('shop run (end to end)', () => {
  it('runs bugfix.lua to completion on the stand-in agents and records every call', () => {
    const p = makeProject();
    const r = p.shop(['run', 'bugfix', 'login fails on empty password']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const id = runId(r);
    expect(r.stdout).toContain(`run ${id} completed`);

    const status = RunDetailJsonSchema.parse(JSON.parse(p.shop(['status', String(id), '--json']).stdout));
    expect(status.status).toBe('completed');
    expect(status.executions.map((e) => [e.key, e.agent, e.status])).toEqual([
      ['1', 'coder', 'completed'],
      ['2', 'coder', 'completed'],
      ['3', 'reviewer', 'completed'],
      ['4', 'coder', 'completed'],
    ]);
    expect(status.cost_usd).toBeCloseTo(0.05, 6);

    const calls = p.invocations().filter((i) => i.mode === 'print');
    expect(calls).toHaveLength(4);
    // Claude Code's real flags: a fresh session id per call, the agent's model and mode.
    expect(new Set(calls.map((c) => c.session_id)).size).toBe(4);
    expect(calls[0]).toMatchObject({
      agent: 'coder',
      resumed: false,
      model: 'sonnet',
      permission_mode: 'acceptEdits',
      cwd: p.dir,
    });
    expect(calls[0].system_prompt).toContain('shop report DONE');
  });

  it('gives an agent a prompt even when neither the run nor run() has one (claude -p needs one)', () => {
    const p = makeProject();
    p.write('workflows/bare.lua', 'function workflow(prompt)\n  return run("coder").status\nend\n');
    const r = p.shop(['run', 'bare']);
    expect(r.code, r.stderr).toBe(0);
    const [call] = p.invocations();
    expect(call.prompt).toBe('Carry out the task described in your instructions.');
  });

  it('shop --help lists every command with its summary, and exits 0', () => {
    const p = makeProject();
    const r = p.shop(['--help']);
    expect(r.code).toBe(0);
    for (const name of [
      'init',
      'run',
      'list',
      'inbox',
      'status',
      'log',
      'continue',
      'resume',
      'stop',
      'approve',
      'reject',
      'answer',
      'signal',
      'report',
    ]) {
      expect(r.stdout).toMatch(new RegExp(`^  ${name} +\\S`, 'm'));
    }
  });
});
