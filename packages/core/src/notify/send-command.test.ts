import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { AskNotice } from './ask-notice.js';
import { nodeNoticeDeps, NoticeCommandError, sendNotice } from './send.js';
import { tempDir } from '../testing/temp-dir.js';
import { until } from '../testing/until.js';

const notice: AskNotice = {
  event: 'escalation',
  run: 7,
  spec: 'bugfix',
  call: '2/1',
  ask: 2,
  handle: '7.2/1.2',
  awaiting: 'input',
  agent: 'coder',
  question: 'Which database?\nPostgres or SQLite',
  answer_with: ['shop answer 7.2/1.2 "…"', 'shop status 7'],
  answer_url: 'https://shop.example.com/a/eyJyIjo3fQ.sig',
  waited_seconds: 3600,
  project: '/srv/app',
  at: '2025-01-02T03:04:05+01:00',
};

const dir = tempDir('shop-notify-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function script(name: string, source: string): string {
  const path = join(dir, name);
  writeFileSync(path, source);
  return path;
}

describe('command notifier', () => {
  it('runs argv without a shell, the notice in SHOP_* variables', async () => {
    const out = join(dir, 'env.json');
    const s = script(
      'dump-env.mjs',
      `
      import { writeFileSync } from 'node:fs';
      const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('SHOP_')));
      writeFileSync(process.argv[2], JSON.stringify({ env, args: process.argv.slice(3), path: process.env.PATH }));
    `,
    );
    const result = await sendNotice(
      { kind: 'command', argv: [process.execPath, s, out, '$HOME', '*'] },
      notice,
      nodeNoticeDeps(),
    );
    expect(result).toEqual({ ok: true, target: `command:${process.execPath}` });
    const got = JSON.parse(readFileSync(out, 'utf8')) as { env: Record<string, string>; args: string[]; path: string };
    expect(got.env).toEqual({
      SHOP_NOTIFY_EVENT: 'escalation',
      SHOP_RUN_ID: '7',
      SHOP_SPEC: 'bugfix',
      SHOP_CALL: '2/1',
      SHOP_ASK: '2',
      SHOP_HANDLE: '7.2/1.2',
      SHOP_AWAITING: 'input',
      SHOP_AGENT: 'coder',
      SHOP_QUESTION: 'Which database?\nPostgres or SQLite',
      SHOP_ANSWER_WITH: 'shop answer 7.2/1.2 "…"\nshop status 7',
      SHOP_ANSWER_URL: 'https://shop.example.com/a/eyJyIjo3fQ.sig',
      SHOP_PROJECT: '/srv/app',
      SHOP_NOTICE_JSON: JSON.stringify(notice),
    });
    expect(JSON.parse(got.env.SHOP_NOTICE_JSON!)).toEqual(notice);
    // No shell: $HOME and * arrive as written; the inherited environment is kept.
    expect(got.args).toEqual(['$HOME', '*']);
    expect(got.path).toBe(process.env.PATH);
  });

  it('fails with the exit code and the last stderr line', async () => {
    const s = script('fail.mjs', `process.stderr.write('first line\\nboom\\n\\n'); process.exit(3);`);
    const result = await sendNotice({ kind: 'command', argv: [process.execPath, s] }, notice, nodeNoticeDeps());
    expect(result).toEqual({
      ok: false,
      target: `command:${process.execPath}`,
      error: `command:${process.execPath}: ${process.execPath} exited with code 3: boom`,
    });
  });

  it('fails naming a program that is not there', async () => {
    const result = await sendNotice(
      { kind: 'command', argv: ['shop-no-such-notifier-4711', '--urgent'] },
      notice,
      nodeNoticeDeps(),
    );
    expect(result).toEqual({
      ok: false,
      target: 'command:shop-no-such-notifier-4711',
      error:
        'command:shop-no-such-notifier-4711: shop-no-such-notifier-4711 was not found (not on PATH, or not executable)',
    });
  });

  it('kills a notifier that runs past its timeout', async () => {
    const pidFile = join(dir, 'slow.pid');
    const s = script(
      'slow.mjs',
      `import { writeFileSync } from 'node:fs'; writeFileSync(process.argv[2], String(process.pid)); setTimeout(() => {}, 60_000);`,
    );
    const result = await sendNotice(
      { kind: 'command', argv: [process.execPath, s, pidFile] },
      notice,
      nodeNoticeDeps(),
      { commandTimeoutMs: 1500 },
    );
    expect(result).toEqual({
      ok: false,
      target: `command:${process.execPath}`,
      error: `command:${process.execPath}: ${process.execPath} did not finish within 1.5 s`,
    });
    const pid = Number(readFileSync(pidFile, 'utf8'));
    await until(
      'the killed notifier to be gone',
      () => {
        try {
          return !process.kill(pid, 0);
        } catch {
          return true;
        }
      },
      2_000,
    );
    expect(() => process.kill(pid, 0)).toThrow();
  });
});

describe('nodeNoticeDeps', () => {
  it('which finds programs on PATH and executables by path, and nothing else', () => {
    const d = nodeNoticeDeps();
    expect(d.which(process.execPath)).toBe(process.execPath);
    expect(d.which('node')).toMatch(/\/node$/);
    expect(d.which('shop-no-such-notifier-4711')).toBeNull();
    expect(d.which(script('not-executable.sh', 'echo hi'))).toBeNull();
    expect(d.which(dir)).toBeNull();
  });

  it('runCommand rejects with a typed error when the program cannot start', async () => {
    const err = await nodeNoticeDeps()
      .runCommand([join(dir, 'missing-program')], {}, 1000)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NoticeCommandError);
    expect(err).toMatchObject({ reason: 'missing', message: `${join(dir, 'missing-program')} was not found` });
  });
});
