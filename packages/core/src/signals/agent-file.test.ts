import { execFileSync } from 'node:child_process';
import { symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AGENT_FILE_CAP, nestingDepth, readAgentFile, readCappedFile, readTail } from './agent-file.js';
import { readSignal } from './signal.js';
import { tempDir } from '../testing/temp-dir.js';

const dir = () => tempDir('shop-agent-file-');

describe('readAgentFile: a file an agent controls', () => {
  it('reads a regular file, and a missing one as none', () => {
    const d = dir();
    writeFileSync(join(d, 'ok.json'), '{"status":"DONE"}');
    expect(readAgentFile(join(d, 'ok.json'))).toEqual({ kind: 'text', text: '{"status":"DONE"}' });
    expect(readAgentFile(join(d, 'none.json'))).toEqual({ kind: 'none' });
  });

  it('refuses a FIFO at once instead of waiting for a writer', () => {
    const d = dir();
    execFileSync('mkfifo', [join(d, 'fifo.json')]);
    expect(readAgentFile(join(d, 'fifo.json'))).toEqual({
      kind: 'refused',
      problem: 'is a FIFO (named pipe); it must be a regular file',
    });
  });

  it('never follows a symbolic link (one to /dev/zero would be read forever)', () => {
    const d = dir();
    symlinkSync('/dev/zero', join(d, 'zero.json'));
    expect(readAgentFile(join(d, 'zero.json'))).toEqual({
      kind: 'refused',
      problem: 'is a symbolic link; it must be a regular file',
    });
  });

  it('refuses a directory', () => {
    expect(readAgentFile(dir())).toMatchObject({
      kind: 'refused',
      problem: 'is a directory; it must be a regular file',
    });
  });

  it('refuses a file over the cap, and takes one at the cap', () => {
    const d = dir();
    writeFileSync(join(d, 'big.json'), Buffer.alloc(AGENT_FILE_CAP + 1, 32));
    expect(readAgentFile(join(d, 'big.json'))).toEqual({
      kind: 'refused',
      problem: 'is larger than 1 MiB (the cap for a file an agent writes)',
    });
    writeFileSync(join(d, 'full.json'), Buffer.alloc(AGENT_FILE_CAP, 32));
    expect(readAgentFile(join(d, 'full.json'))).toMatchObject({ kind: 'text' });
  });

  it('readSignal turns each refusal into an invalid signal naming the problem', () => {
    const d = dir();
    execFileSync('mkfifo', [join(d, 'fifo.json')]);
    expect(readSignal(join(d, 'fifo.json'))).toEqual({
      kind: 'invalid',
      problem: 'is a FIFO (named pipe); it must be a regular file',
    });
  });
});

describe('readCappedFile: a file a person names', () => {
  it('reads through links but stops at the cap (/dev/zero)', () => {
    expect(readCappedFile('/dev/zero', 1000)).toEqual({ tooBig: true });
    const d = dir();
    writeFileSync(join(d, 'a.json'), '{"a":1}');
    symlinkSync(join(d, 'a.json'), join(d, 'link.json'));
    expect(readCappedFile(join(d, 'link.json'))).toEqual({ text: '{"a":1}' });
  });
});

describe('nestingDepth', () => {
  it('counts levels without recursion and stops early past the limit', () => {
    expect(nestingDepth(1, 10)).toBe(0);
    expect(nestingDepth({ a: [{}] }, 10)).toBe(3);
    let deep: unknown = [];
    for (let i = 0; i < 200_000; i++) deep = [deep];
    expect(nestingDepth(deep, 100)).toBe(101);
  });
});

describe('readTail: the end of an agent log', () => {
  it('reads only the last bytes of a big log, all of a small one, nothing of a FIFO or a missing file', () => {
    const d = dir();
    writeFileSync(join(d, 'big.log'), `${'x'.repeat(3 * 1024 * 1024)}\n{"type":"result","result":"ok"}\n`);
    const tail = readTail(join(d, 'big.log'), 1024);
    expect(tail).toHaveLength(1024);
    expect(tail.endsWith('{"type":"result","result":"ok"}\n')).toBe(true);
    writeFileSync(join(d, 'small.log'), 'one\ntwo\n');
    expect(readTail(join(d, 'small.log'), 1024)).toBe('one\ntwo\n');
    execFileSync('mkfifo', [join(d, 'fifo.log')]);
    expect(readTail(join(d, 'fifo.log'))).toBe('');
    expect(readTail(join(d, 'none.log'))).toBe('');
  });
});
