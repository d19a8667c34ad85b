import { describe, expect, it } from 'vitest';
import { makeProject, until } from './harness.js';
import { http, postForm, startServe } from './serve-harness.js';

/** The `shop serve` command: flags, a port in use, warnings, stopping. */
describe('shop serve', () => {
  it('a port in use: one line, exit 6, no stack; a bad --port or --public-url: exit 2', async () => {
    const p = makeProject();
    const s = await startServe(p);
    const taken = p.shop(['serve', '--port', String(s.port)]);
    expect(taken.code).toBe(6);
    expect(taken.stderr).toBe(
      `shop: port ${s.port} on 127.0.0.1 is in use (another shop serve?); pick another with --port N\n`,
    );
    for (const bad of [
      ['--port', '99999'],
      ['--port', 'web'],
      ['--public-url', 'ftp://x'],
      ['--public-url', 'https://x/?a=1'],
    ]) {
      const r = p.shop(['serve', ...bad]);
      expect(r.code).toBe(2);
      expect(r.stderr.split('\n').filter(Boolean)).toHaveLength(1);
    }
    s.bg.child.kill('SIGTERM');
    expect(await s.bg.exited).toBe(0);
    expect(s.bg.output()).not.toMatch(/Error|at /);
  });

  it('--public-url is recorded in the store: login links use it, its host is accepted, cookies are Secure behind https', async () => {
    const p = makeProject();
    const s = await startServe(p, ['--public-url', 'https://shop.example.com/']);
    expect(s.bg.output()).toContain('(public URL https://shop.example.com)');
    const added = p.shop(['access', 'add', 'ann']);
    const token = /https:\/\/shop\.example\.com\/login\/([A-Za-z0-9_-]+)/.exec(added.stdout)![1];
    const login = await postForm(s, '/login', { token }, '', {
      Host: 'shop.example.com',
      Origin: 'https://shop.example.com',
    });
    expect(login.status).toBe(303);
    const named = `shop_session_${s.port}=`;
    expect([login.headers['set-cookie'] ?? []].flat()[0]).toMatch(
      new RegExp(`^${named}[^;]+; Path=/; HttpOnly; SameSite=Strict; Secure`),
    );
    // Opened on this machine over plain http, the same server's cookie is not Secure (it would be dropped).
    const local = await postForm(s, '/login', { token }, '');
    expect([local.headers['set-cookie'] ?? []].flat()[0]).toMatch(
      new RegExp(`^${named}[^;]+; Path=/; HttpOnly; SameSite=Strict; Max-Age=\\d+$`),
    );
    // A POST from the public origin passes the origin check (and then needs its CSRF token).
    const cookie = String(login.headers['set-cookie']).split(';')[0];
    const post = await http(s, '/answer', {
      method: 'POST',
      cookie,
      headers: {
        Host: 'shop.example.com',
        Origin: 'https://shop.example.com',
        'Content-Type': 'application/x-www-form-urlencoded',
      },
      body: 'handle=1.1&verb=approve',
    });
    expect(post.status).toBe(403);
    expect(post.body).toContain('form is out of date');
    s.bg.child.kill('SIGINT');
    expect(await s.bg.exited).toBe(0);
  });

  it('--host other than this machine warns that TLS is not built in, and names addresses people can open — never 0.0.0.0', async () => {
    const p = makeProject();
    const bg = p.spawnShop(['serve', '--port', '0', '--host', '0.0.0.0']);
    try {
      await until(
        'shop serve to say how to sign in',
        () => /sign in with/.test(bg.output()) || bg.child.exitCode !== null,
      );
      expect(bg.output()).toContain('warning: listening on 0.0.0.0, not only this machine; TLS is not built in');
      const m = /listening on 0\.0\.0\.0 port (\d+) \(every address of this machine\): open (.+)\n/.exec(bg.output());
      expect(m, bg.output()).not.toBeNull();
      const port = Number(m![1]);
      const urls = m![2].split(' or ');
      expect(urls).toContain(`http://127.0.0.1:${port}`);
      const login = /shop access add <name> --url (\S+)/.exec(bg.output())![1];
      expect(urls[0]).toBe(login);
      expect(bg.output()).not.toMatch(/http:\/\/(0\.0\.0\.0|\[::\])/);
      const served = { bg, base: `http://127.0.0.1:${port}`, port };
      // Each address named is one the server answers to (a Host it refused would be 421).
      for (const u of urls) expect((await http(served, '/', { headers: { Host: new URL(u).host } })).status).toBe(401);
      expect((await http(served, '/', { headers: { Host: `attacker.test:${port}` } })).status).toBe(421);
    } finally {
      bg.child.kill('SIGTERM');
      expect(await bg.exited).toBe(0);
    }
  });
});
