#!/usr/bin/env node
// Every help text the built `shop` prints — `shop help`, then `shop <cmd> --help` and `shop help <cmd>`
// for each command it lists — to stdout, so two builds can be compared with diff (their help is a
// contract: README and e2e tests quote it). Run from the repository root after `npm run build`.
import { spawnSync } from 'node:child_process';

const shop = (...args) => {
  const r = spawnSync(process.execPath, ['packages/cli/bin/shop', ...args], {
    encoding: 'utf8',
    env: { ...process.env, SHOP_DEBUG: '' },
  });
  return `$ shop ${args.join(' ')}  (exit ${r.status})\n${r.stdout}${r.stderr}`;
};
const global = shop('help');
// A command's line in the global help: two spaces, its name, then its summary.
const names = [...global.matchAll(/^ {2}([a-z]+) {2,}\S/gm)].map((m) => m[1]);
process.stdout.write([global, ...names.flatMap((n) => [shop(n, '--help'), shop('help', n)])].join('\n'));

// Then how bad input is refused (one line, exit 2), in a fresh project: the parser's own errors and
// the commands' checks of what it parsed.
const { mkdtempSync, rmSync } = await import('node:fs');
const { tmpdir } = await import('node:os');
const { join } = await import('node:path');
const bin = join(process.cwd(), 'packages/cli/bin/shop');
const dir = mkdtempSync(join(tmpdir(), 'shop-help-texts-'));
const env = { ...process.env, SHOP_DEBUG: '', SHOP_HOME: '' };
spawnSync(process.execPath, [bin, 'init'], { cwd: dir, env });
const refusals = [
  ['lst'],
  ['--bogus'],
  ['help', 'list', 'x'],
  ['list', '--stauts', 'x'],
  ['list', '-x'],
  ['list', '--limit'],
  ['list', '--limit', 'x'],
  ['list', 'extra'],
  ['log', '1', '--json=1'],
  ['log'],
  ['log', 'x'],
  ['status', '33.4'],
  ['status', '1', '--limit', '--json'],
  ['approve'],
  ['approve', '1', 'two', 'words'],
  ['approve', '33.4', '--call', '2'],
  ['approve', '33', '--call', 'x'],
  ['approve', 'x'],
  ['reject', '1', '--bogus'],
  ['answer', '1', 'hi', '--message-file', '/nonexistent'],
  ['signal', '1'],
  ['watch', 'x'],
  ['watch', '3.4'],
  ['watch', '--max-parallel', '0'],
  ['replay', '1', '--all'],
  ['replay', '2.1'],
  ['event'],
  ['event', 'send'],
  ['event', 'send', 'x', '--run', '3.4'],
  ['event', 'list', '--key', 'k'],
  ['event', 'list', '--limit', '-1'],
  ['access'],
  ['access', 'list', '--url', 'u'],
  ['access', 'add', 'a', 'b'],
  ['resume', '1', '--by', 'x'],
  ['resume', '2.3'],
  ['claim'],
  ['claim', '1.2', '--force'],
  ['stop', 'x'],
  ['stop', '1', 'extra'],
  ['continue', '1', '--call', 'x'],
  ['continue', '1.2', '--call', '2'],
  ['test'],
  ['serve', '--port', 'x'],
  ['run'],
  ['run', 'x', 'y', '--prompt-file', 'f'],
  ['prune', '--older-than', 'x'],
  ['prune', '--status', 'running'],
  ['init', '--database'],
  ['tui', 'x'],
  ['gate', 'x'],
  ['workers', '--json', 'x'],
  ['inbox', '-j'],
  ['test', 'wf', '--runs', '0'],
];
for (const args of refusals) {
  const r = spawnSync(process.execPath, [bin, ...args], { cwd: dir, env, encoding: 'utf8', input: '' });
  process.stdout.write(
    `\n$ shop ${args.join(' ')}  (exit ${r.status})\n${r.stdout}${r.stderr}`.replaceAll(dir, '<project>'),
  );
}
rmSync(dir, { recursive: true, force: true });
