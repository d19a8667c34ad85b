import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { verifyAnswerLink } from '../../packages/core/src/access/answer-link.js';
import { setPublicUrl } from '../../packages/core/src/access/public-url.js';
import { openSqliteStore } from '../../packages/core/src/store/sqlite/sqlite-store.js';
import type { Store } from '../../packages/core/src/store/store.js';
import { makeProject, runId, type Project } from './harness.js';

/** Notices carry the ask's answer link once a public URL of shop serve is recorded in the store. */

const open: { close(): void }[] = [];
afterEach(() => {
  for (const o of open.splice(0)) o.close();
});

function storeOf(p: Project): Store {
  const store = openSqliteStore(join(p.dir, '.shop', 'shop.db'));
  open.push(store);
  return store;
}

const clock = { now: () => Date.now() };

/** A local webhook receiver: the JSON bodies it was sent, in order. */
async function receiver(): Promise<{ url: string; bodies: Record<string, unknown>[]; close(): void }> {
  const bodies: Record<string, unknown>[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => (bodies.push(JSON.parse(body)), res.end('ok')));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    bodies,
    close: () => server.close(),
  };
}

describe('answer links in notices', () => {
  it('a webhook gets an answer_url that verifies to exactly its ask; a command notifier gets SHOP_ANSWER_URL', async () => {
    const hook = await receiver();
    try {
      const p = makeProject();
      const urls = join(p.dir, 'urls.txt');
      p.write(
        'workflows/two.lua',
        `config{ notify = { "webhook:${hook.url}", "command:sh -c 'echo \\"$SHOP_ANSWER_URL\\" >> ${urls}'" } }
function workflow(prompt)
  pause("First?")
  pause("Second?")
  return "done"
end\n`,
      );
      // Without a public URL, no link. (shopAsync: the receiver answers from this event loop.)
      const before = await p.shopAsync(['run', 'two']);
      expect(before.code).toBe(3);
      expect(hook.bodies.pop()).toMatchObject({ run: runId(before.stdout), answer_url: null });
      expect(p.read('urls.txt')).toBe('\n');

      await setPublicUrl(storeOf(p), 'https://shop.example.com/team/');
      const r = await p.shopAsync(['run', 'two']);
      expect(r.code).toBe(3);
      const id = runId(r.stdout);
      const first = hook.bodies.pop()!;
      expect(first).toMatchObject({ run: id, call: '1', ask: 1, handle: `${id}.1` });
      const url = String(first.answer_url);
      expect(url).toMatch(/^https:\/\/shop\.example\.com\/team\/a\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
      expect(p.read('urls.txt').split('\n')[1]).toBe(url);
      const link = await verifyAnswerLink(storeOf(p), clock, url.split('/a/')[1]);
      expect(link).toMatchObject({ runId: id, key: '1', ask: 1, handle: `${id}.1` });
      // Valid for about 7 days from when it was sent.
      expect(link.expiresAt - Date.now()).toBeGreaterThan(7 * 24 * 3600_000 - 120_000);
      expect(link.expiresAt - Date.now()).toBeLessThanOrEqual(7 * 24 * 3600_000);

      // The next ask's notice links to that ask, not the first one.
      expect((await p.shopAsync(['approve', `${id}.1`])).code).toBe(3);
      const second = hook.bodies.pop()!;
      expect(second).toMatchObject({ run: id, call: '2', handle: `${id}.2` });
      expect(second.answer_url).not.toBe(url);
      expect(await verifyAnswerLink(storeOf(p), clock, String(second.answer_url).split('/a/')[1])).toMatchObject({
        runId: id,
        key: '2',
        ask: 1,
      });
      // A link is checked against this store's key: a forged one is refused.
      const [body] = url.split('/a/')[1].split('.');
      await expect(verifyAnswerLink(storeOf(p), clock, `${body}.${'A'.repeat(43)}`)).rejects.toThrow(
        'not a valid answer link',
      );
    } finally {
      hook.close();
    }
  });
});
