import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderTui } from '../test-utils/render.js';
import { testWorld, type TestWorld } from '../test-utils/world.js';

let w: TestWorld;
afterEach(() => w?.dispose());

describe('idle cost', () => {
  it('with nothing running and nothing changing, the browser neither redraws nor looks at the store every poll', async () => {
    w = testWorld();
    for (let i = 0; i < 36; i++) await w.run('return "done"');
    const listRuns = vi.spyOn(w.store, 'listRuns');
    const t = renderTui(w, { rows: 12 }); // polls every 20 ms
    await t.ready();
    const frames = t.frames.length;
    const looks = listRuns.mock.calls.length;
    await new Promise((r) => setTimeout(r, 400));
    // The clock stands still and no run changes: no new frame at all, and a look every 80 ms at most (not every 20).
    expect(t.frames.length).toBe(frames);
    expect(listRuns.mock.calls.length - looks).toBeLessThanOrEqual(6);
    // A change still shows.
    await w.run('return "late"');
    await t.waitFor('37');
  });
});
