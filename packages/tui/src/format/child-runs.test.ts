import { fakeRun } from '@shop/core/testing';
import { describe, expect, it } from 'vitest';
import { factsLine } from './run-detail.js';

describe('the TUI on runs calling runs', () => {
  it("a child's detail names its parent; a run a person started does not", () => {
    const view = (parentId: number | null) =>
      ({
        run: fakeRun({ parentId, parentKey: parentId ? '1' : null }),
        executions: [],
        waiting: null,
        waitingAll: [],
        cost: 0,
      }) as unknown as Parameters<typeof factsLine>[0];
    expect(factsLine(view(7), Date.now())).toMatch(/ · Child of run 7$/);
    expect(factsLine(view(null), Date.now())).not.toContain('Child of');
  });
});
