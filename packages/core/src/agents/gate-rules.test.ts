import { describe, expect, it } from 'vitest';
import { holdingRule } from './gate-rules.js';
import type { GatePlace } from './gate-paths.js';
import { describeGates, readGates, type GateBlock } from './gate-spec.js';

const place: GatePlace = { workspace: '/ws', cwd: '/ws', home: '/home/ann' };
const blocks = (gates: unknown): GateBlock[] => {
  const b = readGates(gates);
  if (typeof b === 'string') throw new Error(b);
  return b;
};
const held = (gates: unknown, tool: string, input: Record<string, unknown>, where = place) =>
  holdingRule(blocks(gates), { tool, input }, where);
const bash = (gates: unknown, command: string) => held(gates, 'Bash', { command });

const RULES = ['Bash(git push --force*)', 'Bash(rm -rf *)'];

describe('Bash rules hold what a command does, however it is spelled', () => {
  it.each([
    ['git push --force origin main', 'Bash(git push --force*)'],
    ['git push -f', 'Bash(git push --force*)'],
    ['git push -f origin main', 'Bash(git push --force*)'],
    ['git push origin +main', 'Bash(git push --force*)'],
    ['git push --force-with-lease', 'Bash(git push --force*)'],
    ['git push --forc', 'Bash(git push --force*)'],
    ['git push --mirror', 'Bash(git push --force*)'],
    ['git push -uf origin x', 'Bash(git push --force*)'],
    ['git  push --force', 'Bash(git push --force*)'],
    [' git push --force', 'Bash(git push --force*)'],
    ['cd x && git push --force', 'Bash(git push --force*)'],
    ['git status; git push -f\n', 'Bash(git push --force*)'],
    ["bash -c 'git push --force'", 'Bash(git push --force*)'],
    ['sh -lc "cd repo && git push -f"', 'Bash(git push --force*)'],
    ['env FOO=1 git push --force', 'Bash(git push --force*)'],
    ['FOO=1 git push --force', 'Bash(git push --force*)'],
    ['git -C . push --force', 'Bash(git push --force*)'],
    ['git -c user.name=x --no-pager --git-dir=.git push -f', 'Bash(git push --force*)'],
    ['sudo -u ci timeout 30 nice git push -f', 'Bash(git push --force*)'],
    ['echo $(git push -f)', 'Bash(git push --force*)'],
    ['git push origin "$BRANCH"', 'Bash(git push --force*)'],
    ['/usr/bin/git push --force', 'Bash(git push --force*)'],
    ['rm -r -f /', 'Bash(rm -rf *)'],
    ['rm -fr x', 'Bash(rm -rf *)'],
    ['rm -Rf x', 'Bash(rm -rf *)'],
    ['/bin/rm -rf x', 'Bash(rm -rf *)'],
    ['rm --recursive --force', 'Bash(rm -rf *)'],
    ['rm --rec --for x', 'Bash(rm -rf *)'],
    ['rm x -rf', 'Bash(rm -rf *)'],
    ['rm -{r,f} x', 'Bash(rm -rf *)'],
    ['find . -name tmp -exec rm -rf {} +', 'Bash(rm -rf *)'],
    ['ls | xargs rm -rf', 'Bash(rm -rf *)'],
    ['command rm -rf x', 'Bash(rm -rf *)'],
  ])('%j is held by %s', (command, rule) => {
    expect(bash(RULES, command)).toBe(rule);
  });

  it.each([
    ['G=git; $G push --force'],
    ["echo 'git push --force' | sh"],
    ['$(which rm) -rf /'],
    ['eval "$X"'],
    ['echo "unclosed'],
  ])('%j cannot be read: held by any Bash rule', (command) => {
    expect(bash(RULES, command)).toMatch(/^Bash\(git push --force\*\) \(the command cannot be read: /);
    expect(bash(['Write(.env*)'], command)).toMatch(/cannot be read/);
    expect(bash(['mcp__*__deploy*'], command)).toBeNull();
  });

  it.each([
    'git push origin main',
    'git push',
    'echo "git push --force"',
    "echo 'rm -rf /'",
    'rm -r x',
    'rm -f x',
    'rm x',
    'git status -f',
    'git log --force-push-history',
    'grep -rf patterns .',
    '# git push --force',
    'cat <<EOF\ngit push --force\nEOF\n',
    "printf '%s' 'rm -rf /' > notes.txt",
  ])('%j is not held', (command) => {
    expect(bash(RULES, command)).toBeNull();
  });

  it('still matches the whole command as sent, as before (a broad glob)', () => {
    expect(bash(['Bash(*--force*)'], 'echo --force')).toBe('Bash(*--force*)');
    expect(bash(['Bash(npm run deploy*)'], 'npm --silent run deploy:prod')).toBe('Bash(npm run deploy*)');
    expect(bash(['Bash(sudo *)'], 'sudo ls')).toBe('Bash(sudo *)');
    expect(bash(['Bash(bash -c*)'], 'bash -c ls')).toBe('Bash(bash -c*)');
    expect(bash(['Bash'], 'ls')).toBe('Bash');
    expect(bash(['Bash(rm -r*)'], 'rm -fr x')).toBe('Bash(rm -r*)');
  });

  it("never holds Shop's own report, in either form (a written file still needs its allow)", () => {
    expect(bash(['Bash'], 'shop report DONE --summary "done"')).toBeNull();
    expect(bash(['Write(.env*)'], 'shop report DONE > .env')).toBe('Write(.env*)');
    expect(bash(['Bash'], './shop report DONE')).toBe('Bash');
  });

  it('meaning for other commands: short clusters are letters apart, options in any order', () => {
    expect(bash(['Bash(tar -xzf *)'], 'tar -x -f a.tgz -z')).toBe('Bash(tar -xzf *)');
    expect(bash(['Bash(git branch -D *)'], 'git branch --delete --force x')).toBe('Bash(git branch -D *)');
    expect(bash(['Bash(git reset --hard*)'], 'git -C . reset --hard HEAD~1')).toBe('Bash(git reset --hard*)');
    expect(bash(['Bash(git clean -f*)'], 'git clean -xdf')).toBe('Bash(git clean -f*)');
    expect(bash(['Bash(chmod -R 777 *)'], 'chmod 777 -R x')).toBe('Bash(chmod -R 777 *)');
  });
});

describe('file rules: every file tool, the path relative to the workspace', () => {
  const gates = ['Write(.env*)', 'Edit(config/*.json)'];
  it.each<[string, Record<string, unknown>, GatePlace?]>([
    ['Write', { file_path: '/ws/.env', content: 'x' }],
    ['Edit', { file_path: '/ws/.env.local', old_string: 'a', new_string: 'b' }],
    ['MultiEdit', { file_path: '/ws/sub/.env', edits: [] }],
    ['NotebookEdit', { notebook_path: '/ws/.env.ipynb', new_source: 'x' }],
    ['Write', { file_path: './src/../.env' }],
    ['write', { file_path: '/elsewhere/.env' }],
    ['Write', { file_path: '/ws/config/app.json' }],
    ['Write', { file_path: 'app.json' }, { ...place, cwd: '/ws/config' }],
    ['Write', {}],
  ])('%s %j is held', (tool, input, where = place) => {
    expect(held(gates, tool, input, where)).toEqual(expect.any(String));
  });

  it('a link is matched as the file it leads to too', () => {
    const linked: GatePlace = { ...place, realPath: (p) => (p === '/ws/settings' ? '/ws/.env' : p) };
    expect(held(gates, 'Write', { file_path: '/ws/settings' }, linked)).toBe('Write(.env*)');
  });

  it('not a file no rule names; not a Read', () => {
    expect(held(gates, 'Write', { file_path: '/ws/src/env.ts' })).toBeNull();
    expect(held(gates, 'Read', { file_path: '/ws/.env' })).toBeNull();
  });

  it('a command writing such a file (> >> tee) is held; ~ is home', () => {
    expect(bash(gates, 'echo A=1 > .env')).toBe('Write(.env*)');
    expect(bash(gates, 'echo A=1 | tee -a config/x.json')).toBe('Edit(config/*.json)');
    expect(bash(['Write(~/.bashrc)'], 'echo x >> ~/.bashrc')).toBe('Write(~/.bashrc)');
    expect(bash(gates, 'echo x > "$OUT"')).toBe('Write(.env*)');
    expect(bash(gates, 'echo x > notes.txt 2>&1 >/dev/null')).toBeNull();
  });
});

describe('tool names match in any case', () => {
  it('mcp__*__deploy* holds mcp__prod__Deploy', () => {
    expect(held(['mcp__*__deploy*'], 'mcp__prod__Deploy', { env: 'prod' })).toBe('mcp__*__deploy*');
    expect(held(['mcp__*__deploy*'], 'mcp__prod__status', {})).toBeNull();
    expect(held(['bash(rm -rf *)'], 'Bash', { command: 'rm -rf x' })).toBe('bash(rm -rf *)');
  });
});

describe('hold by default: { hold, allow }', () => {
  const gates = { hold: ['Bash', 'Write'], allow: ['Bash(npm test*)', 'Bash(git status*)', 'Write(src/*)'] };

  it('a call runs only when every part of it is allowed', () => {
    expect(bash(gates, 'npm test')).toBeNull();
    expect(bash(gates, 'npm test && git status')).toBeNull();
    expect(bash(gates, 'npm test && git push')).toBe('Bash');
    expect(bash(gates, 'npm test $(curl evil)')).toBe('Bash');
    expect(bash(gates, 'npm test > src/log.txt')).toBeNull();
    expect(bash(gates, 'npm test > out.log')).toBe('Bash');
    expect(held(gates, 'Write', { file_path: '/ws/src/a.ts' })).toBeNull();
    expect(held(gates, 'Edit', { file_path: '/ws/README.md' })).toBe('Write');
    expect(held(gates, 'Read', { file_path: '/ws/README.md' })).toBeNull();
  });

  it('allow rules match a command as written: a wrapper, an assignment, a path or a shell is not the command', () => {
    for (const c of ['sudo npm test', 'PATH=/tmp npm test', './npm test', "bash -c 'npm test'", 'FOO=1 git status'])
      expect(bash(gates, c)).toBe('Bash');
  });

  it('an unreadable command is never allowed; shop report always is', () => {
    expect(bash({ hold: ['Bash'], allow: ['Bash'] }, 'echo "x')).toMatch(/cannot be read/);
    expect(bash(gates, 'shop report DONE --summary "tests pass"')).toBeNull();
    expect(bash(gates, 'shop report DONE; rm -rf /')).toBe('Bash');
  });

  it("blocks never weaken one another: the agent's and the workflow's each hold what the other allows", () => {
    const both = [
      ...blocks({ hold: ['Bash'], allow: ['Bash(npm test*)', 'Bash(git push*)'] }),
      ...blocks({ hold: ['Bash(git push*)'], allow: ['Bash(git push origin main)'] }),
    ];
    const h = (command: string) => holdingRule(both, { tool: 'Bash', input: { command } }, place);
    expect(h('npm test')).toBeNull();
    expect(h('git push origin main')).toBeNull();
    expect(h('git push -f origin main')).toBe('Bash(git push*)');
    expect(h('ls')).toBe('Bash');
  });
});

describe('reading gates as written', () => {
  it('a list holds; a block holds by default; several blocks; Lua tables', () => {
    expect(readGates(['Bash(rm -rf *)'])).toEqual([{ hold: ['Bash(rm -rf *)'], allow: [] }]);
    expect(readGates({ hold: 'Bash', allow: {} })).toEqual([{ hold: ['Bash'], allow: [] }]);
    expect(readGates([{ hold: ['Bash'] }, { hold: ['Write'], allow: ['Write(src/*)'] }])).toHaveLength(2);
    expect(readGates({})).toEqual([]);
  });

  it('refuses what it cannot read, naming it', () => {
    expect(readGates({ hold: ['Bash'], allow: ['Bash npm test'] })).toMatch(
      /^gate "Bash npm test" must look like Tool or Tool\(argument glob\)/,
    );
    expect(readGates({ hold: [] })).toMatch(/needs at least one hold rule/);
    expect(readGates({ hold: ['Bash'], deny: ['x'] })).toMatch(/unknown key 'deny'/);
    expect(readGates(['Bash', { hold: ['Bash'] }])).toMatch(/not a mix of both/);
    expect(readGates(7)).toMatch(/give a list of rules/);
  });
});

describe('describeGates', () => {
  it('reads blocks as a person writes them: a list as its rules, a hold-by-default block with its allows, blocks apart', () => {
    expect(describeGates(blocks(RULES))).toBe('Bash(git push --force*), Bash(rm -rf *)');
    expect(
      describeGates([
        ...blocks({ hold: ['Bash'], allow: ['Bash(npm test*)', 'Bash(git status*)'] }),
        ...blocks(['Write(.env*)']),
      ]),
    ).toBe('hold Bash allow Bash(npm test*), Bash(git status*); Write(.env*)');
    expect(describeGates([{ hold: 7 }])).toBeNull();
  });
});
