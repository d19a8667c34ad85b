import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, truncateSync } from 'node:fs';
import { createServer as httpServer, type IncomingHttpHeaders } from 'node:http';
import { createServer as tcpServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { lines, makeProject, runId, shopBin, trail, until, type Project } from './harness.js';

const servers: Server[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});

const listen = async <S extends Server>(server: S): Promise<number> => {
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as AddressInfo).port;
};

/** A workflow that pauses once, telling `target`. */
function pausing(p: Project, target: string) {
  p.write(
    'workflows/n.lua',
    `config{ notify = {${JSON.stringify(target)}} }\nfunction workflow(p)\n  pause("Ship?")\nend\n`,
  );
}

describe('feature.lua when a person turns the coder down', () => {
  it('stops the run (stuck, naming it) instead of going on to review and deploy', () => {
    const p = makeProject();
    p.scenario({ agents: { coder: [{ status: 'NEEDS_HUMAN', reason: 'Which DB?' }] } });
    const id = runId(p.shop(['run', 'feature', 'add login']));
    const r = p.shop(['reject', String(id), 'not this feature']);
    expect(r.code).toBe(4);
    expect(p.status(id)).toMatchObject({
      status: 'stuck',
      reason: expect.stringMatching(/^the coder stopped: REJECTED/),
    });
    expect(p.invocations().map((i) => i.agent)).toEqual(['architect', 'coder']);
  });
});

describe('a store lost beside earlier runs', () => {
  it('an empty shop.db with run folders beside it is refused (exit 1, what to do); nothing is mixed into the old folders', () => {
    const p = makeProject();
    const first = runId(p.shop(['run', 'bugfix', 'x']));
    const logs = readdirSync(join(p.dir, '.shop', 'runs', String(first))).sort();
    truncateSync(join(p.dir, '.shop', 'shop.db'), 0);
    for (const args of [['list'], ['run', 'bugfix', 'y']]) {
      const r = p.shop(args);
      expect(r.code).toBe(1);
      expect(lines(r.stderr)).toEqual([
        `shop: the store ${join(p.dir, '.shop', 'shop.db')} is empty but ${join(p.dir, '.shop', 'runs')} holds the files of 1 earlier run: the store was lost or cut short; restore it from a backup, or start afresh by moving the old files aside (mv ${join(p.dir, '.shop', 'runs')} ${join(p.dir, '.shop', 'runs')}.old)`,
      ]);
    }
    expect(readdirSync(join(p.dir, '.shop', 'runs', String(first))).sort()).toEqual(logs);
    expect(existsSync(join(p.dir, '.shop', 'shop.db-wal'))).toBe(false);
  });
});

describe('notifiers', () => {
  it('a webhook that accepts and never answers holds shop run at most the 5 s given to a notice (it held 17 s), and the trail says so', async () => {
    const p = makeProject();
    const port = await listen(tcpServer(() => {}));
    pausing(p, `webhook:http://127.0.0.1:${port}/hook`);
    const r = await p.shopAsync(['run', 'n']);
    expect(r.code).toBe(3);
    const failed = trail(p, runId(r))
      .filter((e) => e.type === 'notify_failed')
      .map((e) => e.data?.error);
    expect(failed).toEqual([
      `webhook:http://127.0.0.1:${port}/…: no answer within the 5 s given to a notice (2 attempts)`,
    ]);
  });

  it('webhook:http://user:pass@… delivers, the credentials sent as Basic authentication (never shown)', async () => {
    const p = makeProject();
    const got: IncomingHttpHeaders[] = [];
    const port = await listen(
      httpServer((req, res) => {
        got.push(req.headers);
        req.resume();
        req.on('end', () => res.end('ok'));
      }),
    );
    pausing(p, `webhook:http://alice:s%3Acret@127.0.0.1:${port}/hook`);
    const r = await p.shopAsync(['run', 'n']);
    expect(r.code).toBe(3);
    await until('the webhook to be called', () => got.length > 0);
    expect(got[0].authorization).toBe(`Basic ${Buffer.from('alice:s:cret').toString('base64')}`);
    expect(
      trail(p, runId(r))
        .filter((e) => e.type === 'notified')
        .map((e) => e.data?.to),
    ).toEqual([[`webhook:http://127.0.0.1:${port}/…`]]);
    expect(r.stdout + r.stderr).not.toContain('cret');
  });

  it("command:sh -c '…' is split as a shell splits it: the quoted script is one argument", async () => {
    const p = makeProject();
    pausing(p, `command:sh -c 'echo "run $SHOP_RUN_ID asks: $SHOP_QUESTION" >> notices.txt'`);
    const r = await p.shopAsync(['run', 'n']);
    expect(r.code).toBe(3);
    expect(lines(p.read('notices.txt'))).toEqual([`run ${runId(r)} asks: Ship?`]);
  });
});

describe('a store on a full disk', () => {
  it('names the store and says the disk is full (a file size limit stands in for a full disk: writes fail as they would)', () => {
    const p = makeProject();
    p.write(
      'workflows/big.lua',
      'function workflow(p)\n  for i = 1, 400 do log(string.rep("x", 4000)) end\n  return "ok"\nend\n',
    );
    // SIGXFSZ ignored, so a write past the limit fails (EFBIG) instead of killing the process.
    const r = spawnSync(
      'bash',
      ['-c', `trap '' XFSZ; ulimit -f 400; exec "${process.execPath}" "${shopBin}" run big`],
      { cwd: p.dir, env: p.env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
    );
    expect(r.status).toBe(1);
    expect(lines(r.stderr)).toEqual([
      `shop: cannot write the store ${join(p.dir, '.shop', 'shop.db')}: the disk is full or failing (SQLITE_IOERR_WRITE); free some space, check the disk, and try again`,
    ]);
  });
});
