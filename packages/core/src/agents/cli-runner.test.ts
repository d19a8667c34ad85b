import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CliRunner } from './cli-runner.js';
import { transcriptPath } from './claude-transcript.js';
import { tempDir } from '../testing/temp-dir.js';

const standin = join(import.meta.dirname, '..', '..', '..', '..', 'scripts', 'claude-standin.mjs');
const dir = tempDir('shop-runner-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** One invocation of the stand-in as Claude Code, its sessions under `config`. */
function invocation(name: string, resume: boolean, config: string) {
  const cwd = join(dir, 'work');
  mkdirSync(cwd, { recursive: true });
  const signal = join(dir, 'signals', `${name}.json`);
  mkdirSync(dirname(signal), { recursive: true });
  return {
    agent: { name: 'coder', file: 'coder.md', instructions: '', allowedTools: [] },
    prompt: 'go',
    sessionId: '0b6e1c5e-0000-4000-8000-0000000000aa',
    resume,
    cwd,
    env: {
      CLAUDE_CONFIG_DIR: config,
      SHOP_SIGNAL_FILE: signal,
      SHOP_STANDIN_LOG: join(dir, `${name}.log`),
      SHOP_AGENT: 'coder',
      SHOP_RUN_ID: '1',
    },
    stdoutFile: join(dir, `${name}.out`),
    stderrFile: join(dir, `${name}.err`),
  };
}
const log = (name: string) =>
  readFileSync(join(dir, `${name}.log`), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));

describe("CliRunner and Claude Code's sessions", () => {
  it('a session Shop thought never started, whose transcript is here, is resumed instead of refused as "already in use"', async () => {
    const config = join(dir, 'config-a');
    const inv = invocation('taken', false, config);
    const file = transcriptPath({ CLAUDE_CONFIG_DIR: config }, inv.cwd, inv.sessionId);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, '{"type":"user"}\n');
    const outcome = await new CliRunner(() => standin).invoke(inv);
    expect(outcome).toMatchObject({ exitCode: 0, error: null });
    expect(readFileSync(inv.stderrFile, 'utf8')).toBe('');
    expect(log('taken')).toEqual([expect.objectContaining({ mode: 'print', resumed: true, remembered: 1 })]);
  });

  it('a resume with no transcript here starts the session under its id', async () => {
    const inv = invocation('missing', true, join(dir, 'config-b'));
    const outcome = await new CliRunner(() => standin).invoke(inv);
    expect(outcome).toMatchObject({ exitCode: 0, error: null });
    expect(log('missing')).toEqual([expect.objectContaining({ mode: 'print', resumed: false, remembered: 0 })]);
  });
});
