/**
 * A `command:` notifier's words split as a POSIX shell splits them, and nothing more:
 * 'single quotes' keep everything, "double quotes" keep spaces (a backslash escapes " \ $ `
 * there), a backslash outside quotes escapes the next character. No $VARS, globs, pipes or
 * redirections: the program runs without a shell (write `sh -c '…'` for those). An argv
 * string back, or the one-line problem.
 */
export function splitArgv(text: string): string[] | { problem: string } {
  const argv: string[] = [];
  let word: string | null = null;
  let quote: "'" | '"' | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote === "'") {
      if (c === "'") quote = null;
      else word += c;
    } else if (quote === '"') {
      if (c === '"') quote = null;
      else if (c === '\\' && i + 1 < text.length && '"\\$`'.includes(text[i + 1])) word += text[++i];
      else word += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      word ??= '';
    } else if (c === '\\') {
      if (i + 1 === text.length) return { problem: 'ends with a lone backslash' };
      word = (word ?? '') + text[++i];
    } else if (/\s/.test(c)) {
      if (word !== null) argv.push(word);
      word = null;
    } else {
      word = (word ?? '') + c;
    }
  }
  if (quote) return { problem: `has an unclosed ${quote === "'" ? 'single' : 'double'} quote` };
  if (word !== null) argv.push(word);
  return argv;
}
