import type { Word } from './shell-word.js';

/** What a few programs' words say beyond their options: their name, the files tee writes, a git alias. */

/** Outputs that are not files a rule could name. */
export const NOT_FILES = /^\/dev\/(null|stdout|stderr|tty|fd\/\d+)$/;

/** /bin/rm → rm; zsh's =rm too. */
export function programName(text: string): string {
  const bare = /^=[^=]/.test(text) ? text.slice(1) : text;
  return bare.replace(/\/+$/, '').split('/').pop() || bare;
}

/** tee's files: its operands, after its options. */
export function teeFiles(args: Word[]): Word[] {
  const at = args.findIndex((a) => a.text === '--');
  const operands =
    at < 0
      ? args.filter((a) => !a.text.startsWith('-') || a.text === '-')
      : [...args.slice(0, at).filter((a) => !a.text.startsWith('-')), ...args.slice(at + 1)];
  return operands.filter((a) => !NOT_FILES.test(a.text));
}

/** git -c alias.p='push -f' p: an alias given on the command line renames a command. */
export function gitAlias(args: Word[]): boolean {
  const alias = (t: string) => /^alias\./i.test(t);
  return args.some((a, i) => {
    const prev = args[i - 1]?.text;
    if (prev === '-c' || prev === '--config-env') return alias(a.text);
    return (
      (a.text.startsWith('-c') && alias(a.text.slice(2))) ||
      (a.text.startsWith('--config-env=') && alias(a.text.slice('--config-env='.length)))
    );
  });
}
