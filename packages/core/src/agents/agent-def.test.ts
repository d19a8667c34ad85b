import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NotFoundError, UsageError } from '../errors.js';
import { listAgents, loadAgent, parseAgent } from './agent-def.js';
import { tempDir } from '../testing/temp-dir.js';

const md = (front: string, body = 'Do the work.') => `---\n${front}\n---\n${body}\n`;

describe('parseAgent', () => {
  it('reads YAML lists, the body as instructions, and every Shop key', () => {
    const a = parseAgent(
      'coder',
      'agents/coder.md',
      md(
        'description: writes code\nmodel: sonnet\npermission_mode: acceptEdits\nallowed_tools: [Read, "Bash(npm test:*)"]\ntimeout: 60\nhuman: false',
        'You are the coder.\n\nWrite tests.',
      ),
    );
    expect(a).toEqual({
      name: 'coder',
      file: 'agents/coder.md',
      instructions: 'You are the coder.\n\nWrite tests.',
      model: 'sonnet',
      permissionMode: 'acceptEdits',
      allowedTools: ['Read', 'Bash(npm test:*)'],
      timeout: 60,
      human: false,
      command: undefined,
    });
  });

  it("splits a comma string, and accepts Claude Code's own `tools` key", () => {
    expect(parseAgent('a', 'a.md', md('allowed_tools: Read, Grep ,Glob')).allowedTools).toEqual([
      'Read',
      'Grep',
      'Glob',
    ]);
    expect(parseAgent('b', 'b.md', md('name: b\ndescription: x\ntools: Read, Edit\ncolor: blue')).allowedTools).toEqual(
      ['Read', 'Edit'],
    );
    expect(parseAgent('c', 'c.md', md('tools:\n  - Write\n  - Bash')).allowedTools).toEqual(['Write', 'Bash']);
  });

  it('accepts a Claude Code subagent file from .claude/agents, taking its permissionMode', () => {
    const a = parseAgent(
      'cc',
      '.claude/agents/cc.md',
      md(
        'name: cc\ndescription: x\ntools: Read\ndisallowedTools: [Bash]\nmodel: haiku\npermissionMode: plan\nmaxTurns: 5\nskills: [lint]\ncolor: red',
      ),
    );
    expect(a).toMatchObject({ model: 'haiku', permissionMode: 'plan', allowedTools: ['Read'] });
    expect(() => parseAgent('cc', 'cc.md', md('permissionMode: sometimes'))).toThrow(/permissionMode/);
  });

  it('takes a file without front matter as plain instructions', () => {
    expect(parseAgent('p', 'p.md', 'Just instructions.\n')).toMatchObject({
      instructions: 'Just instructions.',
      allowedTools: [],
    });
  });

  it('names an unknown front-matter key', () => {
    const parse = () => parseAgent('x', 'agents/x.md', md('description: x\nmodle: opus'));
    expect(parse).toThrow(UsageError);
    expect(parse).toThrow("agents/x.md: unknown key 'modle'");
  });

  it('names a bad value with its key', () => {
    expect(() => parseAgent('x', 'x.md', md('timeout: soon'))).toThrow(/^x\.md: timeout: /);
    expect(() => parseAgent('x', 'x.md', md('permission_mode: yolo'))).toThrow(/^x\.md: permission_mode: /);
  });

  it('reports bad YAML as one line naming the file', () => {
    let err: unknown;
    try {
      parseAgent('y', 'agents/y.md', md('description: [unclosed\nmodel: "x'));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UsageError);
    const msg = (err as Error).message;
    expect(msg).toMatch(/^agents\/y\.md: front matter is not valid YAML \(/);
    expect(msg).not.toContain('\n');
  });
});

describe('loadAgent', () => {
  function project() {
    const root = tempDir('shop-agents-');
    mkdirSync(join(root, 'agents'));
    mkdirSync(join(root, '.claude', 'agents'), { recursive: true });
    writeFileSync(join(root, 'agents', 'coder.md'), md('model: sonnet'));
    writeFileSync(join(root, '.claude', 'agents', 'reviewer.md'), md('tools: Read'));
    writeFileSync(join(root, '.claude', 'agents', 'coder.md'), md('model: opus'));
    writeFileSync(join(root, 'agents', 'notes.txt'), 'not an agent');
    return root;
  }

  it('reads agents/ first, then .claude/agents/', () => {
    const root = project();
    expect(loadAgent(root, 'coder').model).toBe('sonnet');
    expect(loadAgent(root, 'reviewer').file).toBe(join(root, '.claude', 'agents', 'reviewer.md'));
    expect(listAgents(root)).toEqual(['coder', 'reviewer']);
  });

  it('an unknown agent is a NotFoundError listing the agents found', () => {
    const root = project();
    const load = () => loadAgent(root, 'ghost');
    expect(load).toThrow(NotFoundError);
    expect(load).toThrow(/unknown agent "ghost".*\(found: coder, reviewer\)/);
    const empty = tempDir('shop-agents-');
    expect(() => loadAgent(empty, 'ghost')).toThrow(/no agents defined/);
  });
});

describe('cli:', () => {
  it('names the agent CLI (Claude Code when absent); an unknown one, or one with command:, is refused', () => {
    expect(parseAgent('coder', 'coder.md', md('cli: codex')).cli).toBe('codex');
    expect(parseAgent('coder', 'coder.md', md('cli: gemini')).cli).toBe('gemini');
    expect(parseAgent('coder', 'coder.md', md('model: sonnet')).cli).toBeUndefined();
    expect(() => parseAgent('coder', 'coder.md', md('cli: aider'))).toThrow(/cli/);
    expect(() => parseAgent('coder', 'coder.md', md('cli: codex\ncommand: [x]'))).toThrow(
      /give either cli: \(codex\) or command:, not both/,
    );
  });

  it('gates: Claude Code only, each a Tool or Tool(glob); a list holds, { hold, allow } holds by default', () => {
    expect(parseAgent('coder', 'coder.md', md('gates: ["Bash(git push --force*)", AskUserQuestion]')).gates).toEqual([
      { hold: ['Bash(git push --force*)', 'AskUserQuestion'], allow: [] },
    ]);
    expect(parseAgent('coder', 'coder.md', md('gates:\n  hold: [Bash]\n  allow: ["Bash(npm test*)"]')).gates).toEqual([
      { hold: ['Bash'], allow: ['Bash(npm test*)'] },
    ]);
    expect(parseAgent('coder', 'coder.md', md('gates: []')).gates).toBeUndefined();
    expect(() => parseAgent('coder', 'coder.md', md('gates:\n  hold: [Bash]\n  allow: ["Bash npm"]'))).toThrow(
      /^coder\.md: gates: gate "Bash npm" must look like Tool or Tool\(argument glob\)/,
    );
    expect(() => parseAgent('coder', 'coder.md', md('cli: gemini\ngates: { hold: [Bash] }'))).toThrow(
      /gates: needs Claude Code/,
    );
    expect(() => parseAgent('coder', 'coder.md', md('cli: codex\ngates: ["Bash(rm *)"]'))).toThrow(
      /gates: needs Claude Code \(cli: claude\): Codex cannot suspend a tool call/,
    );
    expect(() => parseAgent('coder', 'coder.md', md('gates: ["Bash rm"]'))).toThrow(
      /must look like Tool or Tool\(argument glob\)/,
    );
  });
});
