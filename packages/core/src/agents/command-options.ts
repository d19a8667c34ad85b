/**
 * What the options of the commands people gate mean, so that a gate matches a flag by meaning:
 * `-rf`, `-r -f`, `-fr`, `-R --force` and `--recursive --force` are one rm. Each option is
 * named by what it does (its long name); the README lists exactly the commands here.
 */
export interface OptionTable {
  /** Short letter → meaning (several, space-separated: git branch -D is `delete force`). */
  short?: Record<string, string>;
  /** Long name → meaning (an unambiguous prefix of it counts too, as GNU tools and git take it). */
  long?: Record<string, string>;
  /** Meanings that take a value: the rest of a short cluster, `--name=value`, or the next word. */
  valued?: string[];
  /** Meanings that mean others too (--force-with-lease is a force push). */
  implies?: Record<string, string[]>;
  /** An operand that starts so means this (git push origin +main: a force push). */
  operandPrefix?: Record<string, string>;
  /** Options before a subcommand (git -C dir …), and each subcommand's own table. */
  subcommands?: Record<string, OptionTable>;
}

const force = { f: 'force' };

export const COMMAND_OPTIONS: Record<string, OptionTable> = {
  rm: {
    short: {
      r: 'recursive',
      R: 'recursive',
      f: 'force',
      i: 'interactive',
      I: 'interactive-once',
      d: 'dir',
      v: 'verbose',
    },
    long: {
      recursive: 'recursive',
      force: 'force',
      interactive: 'interactive',
      dir: 'dir',
      verbose: 'verbose',
      'one-file-system': 'one-file-system',
      'no-preserve-root': 'no-preserve-root',
      'preserve-root': 'preserve-root',
    },
  },
  git: {
    // git's global options: skipped to find the subcommand (git -C . push).
    short: { C: 'dir', c: 'config', p: 'paginate', P: 'no-pager' },
    long: {
      'git-dir': 'git-dir',
      'work-tree': 'work-tree',
      namespace: 'namespace',
      'exec-path': 'exec-path',
      'config-env': 'config-env',
      'super-prefix': 'super-prefix',
      'no-pager': 'no-pager',
      paginate: 'paginate',
      bare: 'bare',
      'no-replace-objects': 'no-replace-objects',
      'literal-pathspecs': 'literal-pathspecs',
      'glob-pathspecs': 'glob-pathspecs',
      'noglob-pathspecs': 'noglob-pathspecs',
      'icase-pathspecs': 'icase-pathspecs',
      'no-optional-locks': 'no-optional-locks',
      'no-advice': 'no-advice',
    },
    valued: ['dir', 'config', 'git-dir', 'work-tree', 'namespace', 'config-env', 'super-prefix'],
    subcommands: {
      push: {
        short: { ...force, d: 'delete', n: 'dry-run', u: 'set-upstream', q: 'quiet', v: 'verbose', o: 'push-option' },
        long: {
          force: 'force',
          'force-with-lease': 'force-with-lease',
          'force-if-includes': 'force-if-includes',
          delete: 'delete',
          'dry-run': 'dry-run',
          'set-upstream': 'set-upstream',
          mirror: 'mirror',
          all: 'all',
          branches: 'all',
          tags: 'tags',
          'follow-tags': 'follow-tags',
          prune: 'prune',
          atomic: 'atomic',
          'no-verify': 'no-verify',
          verify: 'verify',
          'push-option': 'push-option',
          repo: 'repo',
          'receive-pack': 'receive-pack',
          exec: 'receive-pack',
          signed: 'signed',
          'recurse-submodules': 'recurse-submodules',
          quiet: 'quiet',
          verbose: 'verbose',
          progress: 'progress',
          porcelain: 'porcelain',
          thin: 'thin',
          'no-thin': 'no-thin',
        },
        valued: ['push-option', 'repo', 'receive-pack'],
        // --mirror force-updates the remote's refs.
        implies: { 'force-with-lease': ['force'], 'force-if-includes': ['force'], mirror: ['force'] },
        operandPrefix: { '+': 'force', ':': 'delete' },
      },
      reset: {
        short: { q: 'quiet', p: 'patch', N: 'intent-to-add' },
        long: {
          hard: 'hard',
          soft: 'soft',
          mixed: 'mixed',
          merge: 'merge',
          keep: 'keep',
          quiet: 'quiet',
          patch: 'patch',
        },
      },
      clean: {
        short: {
          ...force,
          d: 'dirs',
          x: 'ignored',
          X: 'only-ignored',
          n: 'dry-run',
          i: 'interactive',
          q: 'quiet',
          e: 'exclude',
        },
        long: { force: 'force', 'dry-run': 'dry-run', interactive: 'interactive', quiet: 'quiet', exclude: 'exclude' },
        valued: ['exclude'],
      },
      branch: {
        short: {
          d: 'delete',
          D: 'delete force',
          f: 'force',
          m: 'move',
          M: 'move force',
          c: 'copy',
          C: 'copy force',
          r: 'remotes',
          a: 'all',
          u: 'set-upstream-to',
          t: 'track',
        },
        long: {
          delete: 'delete',
          force: 'force',
          move: 'move',
          copy: 'copy',
          remotes: 'remotes',
          all: 'all',
          'set-upstream-to': 'set-upstream-to',
          track: 'track',
        },
        valued: ['set-upstream-to'],
      },
      checkout: {
        short: { ...force, b: 'branch', B: 'branch-reset', q: 'quiet', p: 'patch' },
        long: { force: 'force', quiet: 'quiet', patch: 'patch', detach: 'detach', orphan: 'orphan' },
        valued: ['branch', 'branch-reset', 'orphan'],
      },
    },
  },
  chmod: {
    short: { R: 'recursive', f: 'silent', v: 'verbose', c: 'changes' },
    long: {
      recursive: 'recursive',
      silent: 'silent',
      quiet: 'silent',
      verbose: 'verbose',
      changes: 'changes',
      reference: 'reference',
    },
    valued: ['reference'],
  },
  chown: {
    short: { R: 'recursive', f: 'silent', v: 'verbose', c: 'changes', h: 'no-dereference' },
    long: {
      recursive: 'recursive',
      silent: 'silent',
      quiet: 'silent',
      verbose: 'verbose',
      changes: 'changes',
      reference: 'reference',
      'no-dereference': 'no-dereference',
    },
    valued: ['reference'],
  },
};
