import { describe, expect, it } from 'vitest';
import { claimVerb, mayAct, runActions, takesVerdict } from './actions.js';

describe('a person’s acts as data', () => {
  it('a run not ended may be stopped; one whose driver is gone resumed too; a failed one only resumed (a retry)', () => {
    expect(runActions({ id: 3, status: 'running' })).toEqual([{ verb: 'stop', handle: '3', needs: 'reason' }]);
    expect(runActions({ id: 3, status: 'interrupted' })).toEqual([
      { verb: 'resume', handle: '3', needs: 'nothing' },
      { verb: 'stop', handle: '3', needs: 'reason' },
    ]);
    expect(runActions({ id: 3, status: 'waiting_human' }).map((a) => a.verb)).toEqual(['stop']);
    for (const status of ['completed', 'stuck']) expect(runActions({ id: 3, status })).toEqual([]);
    expect(runActions({ id: 3, status: 'failed' })).toEqual([{ verb: 'resume', handle: '3', needs: 'nothing' }]);
    expect(mayAct({ id: 3, status: 'failed' }, 'stop')).toBe(false);
    expect(mayAct({ id: 3, status: 'waiting' }, 'stop')).toBe(true);
  });

  it('an ask is claimed, or let go by its claimant only', () => {
    expect(claimVerb(null, 'ann')).toBe('claim');
    expect(claimVerb({ by: 'ann' }, 'ann')).toBe('release');
    expect(claimVerb({ by: 'ann' }, 'bob')).toBe('claim');
    expect(claimVerb({ by: 'ann' }, null)).toBe('claim');
  });

  it('a pause takes approve or reject, never a free answer; an agent’s ask takes all three', () => {
    expect(['approve', 'reject', 'answer'].map((v) => takesVerdict({ kind: 'pause' }, v))).toEqual([true, true, false]);
    expect(['approve', 'reject', 'answer'].map((v) => takesVerdict({ kind: 'run' }, v))).toEqual([true, true, true]);
  });
});
