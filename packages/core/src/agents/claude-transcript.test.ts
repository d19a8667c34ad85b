import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { projectDirName, readTranscript, transcriptPath, writeTranscript } from './claude-transcript.js';
import { tempDir } from '../testing/temp-dir.js';

const dir = tempDir('shop-transcript-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("Claude Code's transcript path", () => {
  // Each pair checked against Claude Code 2.1.330 itself: `claude -p … --resume <id>` run in the
  // directory found a transcript placed under this name, and answered "No conversation found" without it.
  it('names the project folder by the cwd, every character but a-z A-Z 0-9 as -', () => {
    expect(projectDirName('/tmp/ccd/x.y_z-w')).toBe('-tmp-ccd-x-y-z-w');
    expect(projectDirName('/home/u/repos/x/.worktrees/y')).toBe('-home-u-repos-x--worktrees-y');
  });

  it('cuts a name over 200 characters and adds a hash of the whole path', () => {
    const deep =
      `/tmp/ccd/${Array.from({ length: 25 }, (_, i) => `deep_dir.${String(i + 1).padStart(2, '0')}/`).join('')}`.slice(
        0,
        -1,
      );
    expect(projectDirName(deep)).toBe(
      `${'-tmp-ccd-deep-dir-01-deep-dir-02-deep-dir-03-deep-dir-04-deep-dir-05-deep-dir-06-deep-dir-07-deep-dir-08-deep-dir-09-deep-dir-10-deep-dir-11-deep-dir-12-deep-dir-13-deep-dir-14-deep-dir-15-deep-dir-16'}-4m3hhv`,
    );
  });

  it('lives under CLAUDE_CONFIG_DIR, else ~/.claude; CLAUDE_CODE_PROJECT_DIR_NAME names the folder', () => {
    expect(transcriptPath({ CLAUDE_CONFIG_DIR: '/cfg' }, '/no/such/dir', 'abc')).toBe(
      '/cfg/projects/-no-such-dir/abc.jsonl',
    );
    expect(transcriptPath({ HOME: '/home/ann' }, '/no/such/dir', 'abc')).toBe(
      '/home/ann/.claude/projects/-no-such-dir/abc.jsonl',
    );
    expect(
      transcriptPath({ CLAUDE_CONFIG_DIR: '/cfg', CLAUDE_CODE_PROJECT_DIR_NAME: 'mine' }, '/no/such/dir', 'abc'),
    ).toBe('/cfg/projects/mine/abc.jsonl');
  });
});

describe('reading and writing a transcript', () => {
  it('reads it whole with its digest, refuses one over the limit unread, and writes one privately', () => {
    const file = join(dir, 'projects', 'p', 's.jsonl');
    expect(readTranscript(file, 100)).toEqual({ kind: 'missing' });
    writeTranscript(file, Buffer.from('{"type":"user"}\n'));
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readTranscript(file, 100)).toMatchObject({
      kind: 'ok',
      bytes: 16,
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    writeFileSync(file, 'x'.repeat(101));
    expect(readTranscript(file, 100)).toEqual({ kind: 'tooBig', bytes: 101 });
    expect(readFileSync(file, 'utf8')).toHaveLength(101);
    expect(readTranscript(dir, 100)).toEqual({ kind: 'missing' });
  });
});
