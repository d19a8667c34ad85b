import { describe, expect, it } from 'vitest';
import { LostOwnershipError } from '../../errors.js';
import type { RunHold, RunRules } from '../../types.js';
import type { RunEnd } from '../store.js';
import { eventTypes, exec, newRun, OTHER, T, useStore, type StoreAdapter } from './fixtures.js';

const RULES: RunRules = {
  agents: {
    deployer: {
      file: 'agents/deployer.md',
      cli: null,
      model: 'sonnet',
      permission_mode: 'acceptEdits',
      allowed_tools: ['Read'],
      command: null,
      gates: ['Bash(git push --force*)'],
    },
  },
  config: null,
  files: { 'agents/deployer.md': 'a1', 'workflows/deploy.lua': 'w1' },
  differs: [],
};
const HOLD: RunHold = {
  key: '2',
  agent: 'coder',
  files: [{ path: 'agents/deployer.md', before: 'a1', after: 'a2' }],
  at: 1_000_000,
};
const heldEnd = (reason = 'agents/deployer.md changed during step 7.2 (coder)'): RunEnd => ({
  status: 'failed',
  reason,
  held: HOLD,
  event: { type: 'failed', actor: 'shop', channel: 'engine', data: { reason } },
});

/** The rules a run obeys (fixed as it starts) and its hold when a rule file changed during its step. */
export function runRules(adapter: StoreAdapter) {
  describe('run rules and holds', () => {
    const ctx = useStore(adapter);

    it('createRun records the rules given (none: null); setRunRules replaces them with its event, fenced by the owner', async () => {
      const { store } = ctx;
      expect((await store.createRun(newRun())).rules).toBeNull();
      const run = await store.createRun(newRun({ rules: RULES }));
      expect(run).toMatchObject({ rules: RULES, held: null });
      expect((await store.getRun(run.id))!.rules).toEqual(RULES);
      const later = { ...RULES, config: { gates: ['Bash(rm -rf *)'], max_parallel: 2 } };
      await expect(store.setRunRules(OTHER, run.id, { rules: later })).rejects.toThrow(LostOwnershipError);
      expect((await store.getRun(run.id))!.rules).toEqual(RULES);
      await store.setRunRules(T, run.id, {
        rules: later,
        events: [
          { type: 'rules_recorded', actor: 'shop', channel: 'engine', data: { config: true } },
          { type: 'rules_kept', actor: 'shop', channel: 'engine' },
        ],
      });
      expect((await store.getRun(run.id))!.rules).toEqual(later);
      expect((await store.listEvents(run.id)).slice(-2)).toMatchObject([
        { type: 'rules_recorded', data: { config: true } },
        { type: 'rules_kept' },
      ]);
    });

    it('a held end fails the run and its open calls but the held step, which stays running; files_changed comes before the end', async () => {
      const { store } = ctx;
      const run = await store.createRun(newRun({ rules: RULES }));
      await store.startExecution(T, exec(run.id, '1'));
      await store.startExecution(T, exec(run.id, '2', { signalPath: '/s/7.2.coder.json' }));
      expect(await store.finishRun(T, run.id, heldEnd())).toBe(true);
      expect(await store.getRun(run.id)).toMatchObject({
        status: 'failed',
        reason: 'agents/deployer.md changed during step 7.2 (coder)',
        held: HOLD,
        rules: RULES,
      });
      expect(await store.getExecution(run.id, '2')).toMatchObject({
        status: 'running',
        signalPath: '/s/7.2.coder.json',
        error: null,
      });
      expect(await store.getExecution(run.id, '1')).toMatchObject({ status: 'failed' });
      expect((await eventTypes(store, run.id)).slice(-2)).toEqual(['files_changed', 'failed']);
      expect((await store.listRuns({ held: true })).map((r) => r.id)).toEqual([run.id]);
      expect(await store.countRuns({ held: true })).toBe(1);
      expect((await store.listEvents(run.id)).at(-2)).toMatchObject({
        key: '2',
        data: { key: '2', agent: 'coder', files: HOLD.files },
      });
    });

    it('a run that has ended is not held by a late end; a retried run keeps its hold until setRunRules clears it', async () => {
      const { store } = ctx;
      const run = await store.createRun(newRun());
      await store.finishRun(T, run.id, {
        status: 'failed',
        reason: 'first',
        event: { type: 'failed', actor: 'shop', channel: 'engine' },
      });
      expect(await store.finishRun(T, run.id, heldEnd())).toBe(false);
      expect(await store.getRun(run.id)).toMatchObject({ held: null, reason: 'first' });
      expect(await eventTypes(store, run.id)).not.toContain('files_changed');

      const held = await store.createRun(newRun());
      await store.startExecution(T, exec(held.id, '2'));
      await store.finishRun(T, held.id, heldEnd());
      await store.setRunStatus(T, held.id, 'running', { type: 'retried', actor: 'shop', channel: 'engine' });
      expect(await store.getRun(held.id)).toMatchObject({ status: 'running', held: HOLD });
      await store.setRunRules(T, held.id, {
        clearHeld: true,
        events: [{ type: 'hold_cleared', actor: 'ann', channel: 'cli' }],
      });
      expect(await store.getRun(held.id)).toMatchObject({ held: null, rules: null });
      expect((await eventTypes(store, held.id)).at(-1)).toBe('hold_cleared');
    });

    it('setRunRules is all or nothing: when one of its events fails, the rules and the hold stay as they were', async () => {
      const { store } = ctx;
      const run = await store.createRun(newRun({ rules: RULES }));
      await store.startExecution(T, exec(run.id, '2'));
      await store.finishRun(T, run.id, heldEnd());
      const undo = await adapter.failEvents(store, 'changes_accepted');
      const accepted = {
        rules: { ...RULES, differs: [] },
        clearHeld: true,
        events: [
          { type: 'hold_cleared', actor: 'ann', channel: 'cli' as const },
          { type: 'changes_accepted', actor: 'ann', channel: 'cli' as const },
        ],
      };
      await expect(store.setRunRules(T, run.id, accepted)).rejects.toThrow();
      expect(await store.getRun(run.id)).toMatchObject({ held: HOLD, rules: RULES });
      expect(await eventTypes(store, run.id)).not.toContain('hold_cleared');
      await undo();
      await store.setRunRules(T, run.id, accepted);
      expect(await store.getRun(run.id)).toMatchObject({ held: null });
    });

    it('a held end is all or nothing: when its files_changed event fails the run stays as it was', async () => {
      const { store } = ctx;
      const run = await store.createRun(newRun());
      await store.startExecution(T, exec(run.id, '2'));
      const undo = await adapter.failEvents(store, 'files_changed');
      await expect(store.finishRun(T, run.id, heldEnd())).rejects.toThrow();
      expect(await store.getRun(run.id)).toMatchObject({ status: 'running', held: null, reason: null });
      expect(await store.getExecution(run.id, '2')).toMatchObject({ status: 'running' });
      await undo();
      expect(await store.finishRun(T, run.id, heldEnd())).toBe(true);
    });
  });
}
