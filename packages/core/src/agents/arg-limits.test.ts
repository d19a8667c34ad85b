import { describe, expect, it } from 'vitest';
import { argTooLong, MAX_ARG_BYTES } from './arg-limits.js';
import { claude } from './dialects/claude.js';
import { codex } from './dialects/codex.js';

const agent = { name: 'coder', file: 'agents/coder.md' };
const step = (prompt: string, system = 'You code.') => ({ agent, prompt, system });

describe("an agent's command line over Linux's bound for one argument", () => {
  it('names the prompt, its size, the bound and what to do', () => {
    const prompt = 'x'.repeat(200_000);
    expect(argTooLong(claude, step(prompt), ['-p', prompt], 'linux')).toBe(
      'the prompt to coder is 200,000 bytes, over the 131,071 Linux takes in one command-line argument (MAX_ARG_STRLEN), so Claude Code was not started; put the long text in a file in the workspace and give the agent its path',
    );
  });

  it("names the agent's instructions when they are what is too long", () => {
    const system = 'y'.repeat(MAX_ARG_BYTES);
    expect(argTooLong(claude, step('go', system), ['-p', 'go', '--append-system-prompt', system], 'linux')).toMatch(
      /^coder's instructions \(agents\/coder\.md with Shop's signal protocol\) are 131,072 bytes, over the 131,071 .*; shorten agents\/coder\.md, or move the detail into a file the agent reads$/,
    );
  });

  it('a CLI that takes prompt and instructions as one argument says so', () => {
    const prompt = 'z'.repeat(150_000);
    expect(argTooLong(codex, step(prompt), ['exec', `You code.\n\n---\n\n${prompt}`], 'linux')).toMatch(
      /^the prompt to coder with its instructions \(Codex takes them as one argument\) is 150,016 bytes/,
    );
  });

  it('counts bytes, not characters: the bound is exact, NUL included', () => {
    const fits = 'é'.repeat((MAX_ARG_BYTES - 2) / 2);
    expect(argTooLong(claude, step(fits), [fits], 'linux')).toBeNull();
    expect(argTooLong(claude, step(`${fits}x`), [`${fits}x`], 'linux')).toBeNull();
    expect(argTooLong(claude, step(`${fits}xy`), [`${fits}xy`], 'linux')).toMatch(/is 131,072 bytes/);
  });

  it('elsewhere (macOS has no such bound) nothing is refused here', () => {
    const prompt = 'x'.repeat(200_000);
    expect(argTooLong(claude, step(prompt), [prompt], 'darwin')).toBeNull();
  });
});
