import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ChangeFeed } from './change-feed.js';

/** A live page's response: what was written to it, and a way to close it. */
function listener() {
  const res = Object.assign(new EventEmitter(), {
    text: '',
    writeHead: () => res,
    write: (t: string) => void (res.text += t),
    end: () => res.emit('close'),
  });
  return res;
}

describe('ChangeFeed', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('one poller for every listener; an event names the runs changed since the last look; nothing when nothing changed', async () => {
    let now = 10_000;
    let rows: { id: number; updatedAt: number }[] = [];
    const looks: number[] = [];
    const feed = new ChangeFeed(
      { now: () => now, changedRuns: async (since) => (looks.push(since), rows.filter((r) => r.updatedAt > since)) },
      (e) => {
        throw e;
      },
    );
    const a = listener();
    const b = listener();
    feed.listen(a as unknown as ServerResponse);
    feed.listen(b as unknown as ServerResponse);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(a.text).toBe('retry: 2000\n\n');
    rows = [{ id: 7, updatedAt: 10_500 }];
    now = 11_000;
    await vi.advanceTimersByTimeAsync(1_000);
    expect(a.text).toBe('retry: 2000\n\nevent: change\ndata: {"runs":[7]}\n\n');
    expect(b.text).toBe(a.text);
    // Read again inside the margin, unchanged: no second event.
    await vi.advanceTimersByTimeAsync(1_000);
    expect(a.text.match(/event: change/g)).toHaveLength(1);
    // One poll per tick whatever the number of listeners.
    const before = looks.length;
    await vi.advanceTimersByTimeAsync(1_000);
    expect(looks.length).toBe(before + 1);
    // The clock set back (a test's fast-forward undone): later changes are still seen.
    rows.push({ id: 8, updatedAt: 5_000 });
    now = 5_500;
    await vi.advanceTimersByTimeAsync(1_000);
    expect(a.text).toContain('data: {"runs":[8]}');
    // Everyone gone: polling stops.
    a.end();
    b.end();
    const stopped = looks.length;
    await vi.advanceTimersByTimeAsync(5_000);
    expect(looks.length).toBe(stopped);
    expect(feed.size).toBe(0);
  });

  it('counts each person’s open streams; a closed one gives its slot back', () => {
    const feed = new ChangeFeed({ now: () => 0, changedRuns: async () => [] }, () => {});
    const [a1, a2, b] = [listener(), listener(), listener()];
    feed.listen(a1 as unknown as ServerResponse, undefined, 'ann');
    feed.listen(a2 as unknown as ServerResponse, undefined, 'ann');
    feed.listen(b as unknown as ServerResponse, undefined, 'bob');
    expect([feed.countOf('ann'), feed.countOf('bob'), feed.size]).toEqual([2, 1, 3]);
    a1.end();
    // A second 'close' (the server ending a stream the client closed too) counts once.
    a1.emit('close');
    expect([feed.countOf('ann'), feed.countOf('bob'), feed.size]).toEqual([1, 1, 2]);
    feed.close();
    expect(feed.countOf('ann')).toBe(0);
  });

  it('heartbeats keep an idle stream open', async () => {
    const feed = new ChangeFeed({ now: () => 0, changedRuns: async () => [] }, () => {});
    const a = listener();
    feed.listen(a as unknown as ServerResponse);
    await vi.advanceTimersByTimeAsync(15_000);
    expect(a.text).toContain(': ping\n\n');
    feed.close();
  });

  it('a listener no longer allowed (its person revoked) is told nothing more and its stream ends', async () => {
    let now = 10_000;
    const rows: { id: number; updatedAt: number }[] = [];
    const feed = new ChangeFeed(
      { now: () => now, changedRuns: async (since) => rows.filter((r) => r.updatedAt > since) },
      () => {},
    );
    let eveAllowed = true;
    const ann = listener();
    const eve = listener();
    let eveEnded = false;
    eve.on('close', () => (eveEnded = true));
    feed.listen(ann as unknown as ServerResponse, async () => true);
    feed.listen(eve as unknown as ServerResponse, async () => eveAllowed);
    await vi.advanceTimersByTimeAsync(1_000);
    eveAllowed = false;
    rows.push({ id: 9, updatedAt: 10_500 });
    now = 11_000;
    await vi.advanceTimersByTimeAsync(1_000);
    expect(ann.text).toContain('data: {"runs":[9]}');
    expect(eve.text).not.toContain('event: change');
    expect(eveEnded).toBe(true);
    expect(feed.size).toBe(1);
    feed.close();
  });
});
