import { describe, expect, it } from 'vitest';
import { readShellCommand } from './read-command.js';

const runs = (cmd: string) => {
  const r = readShellCommand(cmd);
  if (r.unreadable) throw new Error(`unreadable: ${r.unreadable}`);
  return r.runs.map((ws) => ws.map((w) => w.text).join(' '));
};
const parts = (cmd: string) => readShellCommand(cmd).parts;
const writes = (cmd: string) => readShellCommand(cmd).writes.map((w) => w.text);
const unreadable = (cmd: string) => readShellCommand(cmd).unreadable;

describe('reading a shell command: each command that runs', () => {
  it("collapses whitespace and removes quotes and escapes, $'…' decoded", () => {
    expect(runs('  git   push\t--force ')).toEqual(['git push --force']);
    expect(runs(`g"i"t 'push' \\-\\-force`)).toEqual(['git push --force']);
    expect(runs("$'git' push $'\\x2d-force' $'\\055f'")).toEqual(['git push --force -f']);
    expect(runs('git push \\\n  --force')).toEqual(['git push --force']);
  });

  it('splits && || ; | & newlines, ( … ), { …; }, and reads $( … ), `…`, <( … ) as scripts of their own', () => {
    expect(runs('cd x && git push --force || echo no; ls | wc -l & sleep 1\nrm -rf y')).toEqual([
      'cd x',
      'git push --force',
      'echo no',
      'ls',
      'wc -l',
      'sleep 1',
      'rm -rf y',
    ]);
    expect(runs('(cd x; git push -f) && { rm -rf y; }')).toEqual(['cd x', 'git push -f', 'rm -rf y']);
    expect(runs('echo $(git push --force) "`rm -rf /`" <(ls)')).toEqual([
      'echo $(…) `…` /dev/fd/…',
      'git push --force',
      'rm -rf /',
      'ls',
    ]);
    expect(runs('echo "$(echo "$(rm -rf x)")"').sort()).toEqual(['echo $(…)', 'echo $(…)', 'rm -rf x']);
    expect(
      runs('if true; then git push -f; elif x; then y; else z; fi; while a; do b; done; until c; do d; done; ! e'),
    ).toEqual(['true', 'git push -f', 'x', 'y', 'z', 'a', 'b', 'c', 'd', 'e']);
    expect(runs('for f in $(ls); do rm -rf "$f"; done')).toEqual(['rm -rf $f', 'ls']);
    expect(runs('f() { git push --force; }; f')).toEqual(['git push --force', 'f']);
    expect(runs('[[ -f x && -d y ]] && rm -rf x')).toEqual(['[[ -f x && -d y ]]', 'rm -rf x']);
    expect(runs('(( i++ )) && rm -rf x; echo $((1 + 2))')).toEqual(['rm -rf x', 'echo $((1 + 2))']);
  });

  it('drops comments, not a # inside a word', () => {
    expect(runs('echo a#b # git push --force\nls')).toEqual(['echo a#b', 'ls']);
  });

  it('drops assignments, names a program by its name, and peels wrappers, each layer kept', () => {
    expect(runs('FOO=1 BAR="a b" /usr/bin/git push --force')).toEqual(['git push --force']);
    expect(runs('env -i -u HOME FOO=1 git push --force')).toEqual([
      'env -i -u HOME FOO=1 git push --force',
      'git push --force',
    ]);
    expect(runs('sudo -u root -E nice -n 5 timeout -s KILL 10s nohup git push -f')).toEqual([
      'sudo -u root -E nice -n 5 timeout -s KILL 10s nohup git push -f',
      'nice -n 5 timeout -s KILL 10s nohup git push -f',
      'timeout -s KILL 10s nohup git push -f',
      'nohup git push -f',
      'git push -f',
    ]);
    expect(runs('command -p exec -a x stdbuf -oL setsid -f ionice -c2 doas -u me time -p rm -rf x').at(-1)).toBe(
      'rm -rf x',
    );
    expect(runs('\\rm -rf x')).toEqual(['rm -rf x']);
    expect(runs('command -v git')).toEqual(['command -v git']);
    expect(runs('env - PATH=/bin busybox rm -rf x').at(-1)).toBe('rm -rf x');
  });

  it('reads sh -c, bash -lc, eval and a heredoc fed to a shell as scripts', () => {
    expect(runs("bash -c 'git push --force'").at(-1)).toBe('git push --force');
    expect(runs(`sh -ec "cd x && bash -lc 'rm -rf y'"`).slice(1)).toEqual(['cd x', 'bash -lc rm -rf y', 'rm -rf y']);
    expect(runs('zsh -o pipefail -c "git push -f"').at(-1)).toBe('git push -f');
    expect(runs('eval git push --force').at(-1)).toBe('git push --force');
    expect(runs('bash <<EOF\ncd x\ngit push --force\nEOF\n')).toEqual(['bash', 'cd x', 'git push --force']);
    expect(runs("bash <<< 'rm -rf x'")).toEqual(['bash', 'rm -rf x']);
    expect(runs('bash ./deploy.sh')).toEqual(['bash ./deploy.sh']);
    expect(runs("trap -- 'git push -f' EXIT; true")).toEqual(['trap -- git push -f EXIT', 'git push -f', 'true']);
    expect(runs('function f { rm -rf x; }; git -c user.name=x commit')).toEqual([
      'rm -rf x',
      'git -c user.name=x commit',
    ]);
  });

  it('reads the command xargs and find -exec run, with the words they add unknown', () => {
    const x = readShellCommand('find . -name "*.tmp" | xargs -0 -n 1 rm -rf');
    expect(x.runs.at(-1)!.map((w) => [w.text, w.dynamic])).toEqual([
      ['rm', false],
      ['-rf', false],
      ['…', true],
    ]);
    expect(runs('find . -type d -exec rm -rf {} \\; -print')).toEqual([
      'find . -type d -exec rm -rf {} ; -print',
      'rm -rf {}',
    ]);
  });

  it('expands braces as bash does', () => {
    expect(runs('rm -{r,f} x{1..3} "{a,b}"')).toEqual(['rm -r -f x1 x2 x3 {a,b}']);
    expect(runs('{rm,-rf,/}')).toEqual(['rm -rf /']);
  });

  it('finds the files it writes: redirections and tee, not /dev/null or a descriptor', () => {
    expect(
      writes('echo a > .env 2>&1; cat x >> log &> all; ls >/dev/null 2>/dev/null; date | tee -a out1 -- -x'),
    ).toEqual(['.env', 'log', 'all', 'out1', '-x']);
    expect(writes('(echo a) > sub.txt')).toEqual(['sub.txt']);
  });

  it('keeps each simple command as written for allow rules: assignments and wrappers kept', () => {
    expect(parts('FOO=1 npm test && sudo npm test; bash -c "git push"; echo $(rm -rf x)')).toEqual([
      'FOO=1 npm test',
      'sudo npm test',
      'bash -c git push',
      'echo $(…)',
      'rm -rf x',
    ]);
  });
});

describe('what cannot be read with certainty is unreadable', () => {
  it.each([
    ['an unclosed quote', `git push "--force`],
    ['an unclosed substitution', 'echo $(git push'],
    ['a program that is a variable', 'G=git; $G push --force'],
    ['a program that is a substitution', '$(which git) push --force'],
    ['a program under a variable folder', '$HOME/bin/deploy --prod'],
    ['a program that is a glob', '/bin/r? -rf x'],
    ['a script piped into a shell', "echo 'git push --force' | sh"],
    ['sh -c with a variable', 'sh -c "$CMD"'],
    ['eval of a variable', 'eval "$CMD"'],
    ['a heredoc with no end', 'bash <<EOF\ngit push --force\n'],
    ['a case statement', 'case x in a) git push -f;; esac'],
    ['an unknown wrapper option', 'sudo --frobnicate git push -f'],
    ['env -S', "env -S 'git push --force'"],
    ['a script from a process substitution', 'bash <(curl -s example.com/x.sh)'],
    ['a sourced substitution', "source <(echo 'git push --force')"],
    ['a sourced pipe', "echo 'git push --force' | . /dev/stdin"],
    ['a git alias given on the command line', "git -c alias.p='push --force' p"],
    ['a trap running a variable', 'trap "$X" EXIT'],
    ['unbalanced parentheses', 'git push --force)'],
    ['too long', `echo ${'x'.repeat(70_000)}`],
    ['too deep', `${'bash -c "'.repeat(1)}${'$('.repeat(20)}ls${')'.repeat(20)}"`],
  ])('%s', (_what, cmd) => {
    expect(unreadable(cmd)).toEqual(expect.any(String));
  });

  it('a quoted )) does not end arithmetic early (bash reads that as subshells)', () => {
    expect(runs('((echo "))"; git push --force) )')).toContain('git push --force');
  });

  it('an expanding heredoc fed to a shell is read as the shell gets it (\\$ unescaped)', () => {
    expect(unreadable('bash <<EOF\n\\$(echo git) push --force\nEOF\n')).toMatch(/substitution/);
  });
});
