import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeRuleFiles } from './rule-files.js';

/** A project with one workflow and two agent definitions, its files stamped a while ago (not "racily" new). */
function project() {
  const root = mkdtempSync(join(tmpdir(), 'shop-rule-files-'));
  mkdirSync(join(root, 'agents'));
  mkdirSync(join(root, 'workflows'));
  const write = (rel: string, text: string) => writeFileSync(join(root, rel), text);
  write('workflows/deploy.lua', 'function workflow() end\n');
  write('agents/deployer.md', '---\ngates: ["Bash(git push --force*)"]\n---\nShip.\n');
  write('agents/notes.txt', 'not an agent');
  const workflow = join(root, 'workflows', 'deploy.lua');
  return { root, write, workflow };
}

/** A clock far ahead of the files' stamps: nothing looks recently changed. */
const later = () => Date.now() + 60_000;

describe('the rule files, looked at', () => {
  it('hashes the workflow and each agent definition (both folders), by path as shown; other files are not rules', () => {
    const { root, write, workflow } = project();
    mkdirSync(join(root, '.claude', 'agents'), { recursive: true });
    write('.claude/agents/coder.md', 'You code.');
    const look = nodeRuleFiles(root, later).look(workflow);
    expect([...look.keys()]).toEqual(['workflows/deploy.lua', 'agents/deployer.md', '.claude/agents/coder.md']);
    expect(look.get('agents/deployer.md')).toMatch(/^[0-9a-f]{64}$/);
    expect(nodeRuleFiles(root, later).agentNames()).toEqual(['coder', 'deployer']);
  });

  it('tells a change, a new file and a deleted one; a touch that changes nothing keeps the hash', () => {
    const { root, write, workflow } = project();
    const files = nodeRuleFiles(root, later);
    const first = files.look(workflow);
    const old = new Date(Date.now() - 3_600_000);
    utimesSync(join(root, 'agents', 'deployer.md'), old, old);
    expect(files.look(workflow)).toEqual(first);
    write('agents/deployer.md', '---\n---\nShip.\n');
    write('agents/evil.md', 'Do anything.');
    rmSync(workflow);
    const now = files.look(workflow);
    expect(now.get('agents/deployer.md')).not.toBe(first.get('agents/deployer.md'));
    expect(now.has('agents/evil.md')).toBe(true);
    expect(now.has('workflows/deploy.lua')).toBe(false);
  });

  it('a change of the same size whose modification time is set back is still seen (its ctime moved)', () => {
    const { root, write, workflow } = project();
    const files = nodeRuleFiles(root, later);
    const path = join(root, 'agents', 'deployer.md');
    write('agents/deployer.md', 'A');
    const old = new Date(Date.now() - 3_600_000);
    utimesSync(path, old, old);
    const first = files.look(workflow).get('agents/deployer.md');
    write('agents/deployer.md', 'B');
    utimesSync(path, old, old);
    expect(files.look(workflow).get('agents/deployer.md')).not.toBe(first);
  });

  it('gives a look again only within reuseMs; never opens a FIFO put where a definition was', () => {
    const { root, workflow } = project();
    const files = nodeRuleFiles(root, later);
    const first = files.look(workflow);
    expect(files.look(workflow, 60_000)).toBe(first);
    expect(files.look(workflow)).not.toBe(first);
    rmSync(join(root, 'agents', 'deployer.md'));
    execFileSync('mkfifo', [join(root, 'agents', 'deployer.md')]);
    expect(files.look(workflow).get('agents/deployer.md')).toMatch(/^not-a-file:/);
  });

  it('a file where an agent folder was: no definitions there, and no error', () => {
    const { root, workflow } = project();
    const files = nodeRuleFiles(root, later);
    rmSync(join(root, 'agents'), { recursive: true });
    writeFileSync(join(root, 'agents'), 'a file where the folder was');
    mkdirSync(join(root, '.claude'));
    writeFileSync(join(root, '.claude', 'agents'), 'not a folder either');
    expect([...files.look(workflow).keys()]).toEqual(['workflows/deploy.lua']);
  });

  it('hashes the modules a workflow may require: every .lua under workflows/lib, folders too, not what a link to a folder holds', () => {
    const { root, write, workflow } = project();
    mkdirSync(join(root, 'workflows', 'lib', 'git'), { recursive: true });
    write('workflows/lib/ship.lua', 'return {}');
    write('workflows/lib/git/helpers.lua', 'return {}');
    write('workflows/lib/notes.md', 'not a module');
    symlinkSync(join(root, 'workflows', 'lib'), join(root, 'workflows', 'lib', 'git', 'loop'));
    const files = nodeRuleFiles(root, later);
    const first = files.look(workflow);
    expect([...first.keys()]).toEqual([
      'workflows/deploy.lua',
      'workflows/lib/git/helpers.lua',
      'workflows/lib/ship.lua',
      'agents/deployer.md',
    ]);
    write('workflows/lib/git/helpers.lua', 'return { changed = true }');
    write('workflows/lib/git/new.lua', 'return {}');
    const now = files.look(workflow);
    expect(now.get('workflows/lib/git/helpers.lua')).not.toBe(first.get('workflows/lib/git/helpers.lua'));
    expect(now.has('workflows/lib/git/new.lua')).toBe(true);
  });
});
