import { UsageError, capName, quoted, readCappedFile } from '@shop/core';

/**
 * The most text a prompt or an answer may hold when read from a file or stdin: the cap on a
 * value crossing into the workflow's Lua (core's MAX_VALUE_BYTES; lua/convert.ts is not
 * imported here, it loads the Lua VM). Past the argument limit (~128 KiB for one argument on
 * Linux), words on the command line cannot reach it.
 */
export const TEXT_INPUT_CAP = 16 * 1024 * 1024;

const WHY: Record<string, string> = { ENOENT: 'no such file', EISDIR: 'it is a folder', EACCES: 'permission denied' };

/**
 * Text a person gives by file (`--prompt-file F`) or on stdin (`-`): read whole, at most
 * TEXT_INPUT_CAP bytes (`/dev/zero` must not fill the memory), its trailing line breaks
 * dropped as `$(cat F)` would. `what` names it in errors ("the prompt"), `flag` the option.
 */
export async function readTextInput(source: string, flag: string, what: string): Promise<string> {
  const stdin = source === '-';
  const from = stdin ? 'stdin' : `${flag} ${quoted(source)}`;
  let read;
  try {
    read = stdin ? await readStdin(what) : readCappedFile(source, TEXT_INPUT_CAP);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new UsageError(`${from}: cannot read ${what} (${(code && WHY[code]) ?? code ?? (e as Error).message})`);
  }
  if ('tooBig' in read)
    throw new UsageError(
      `${from} holds more than ${capName(TEXT_INPUT_CAP)}, the most ${what} may hold (it is handed to the workflow's Lua); give less`,
    );
  return read.text.replace(/(\r?\n)+$/, '');
}

/** stdin to its end, at most TEXT_INPUT_CAP bytes (a pipe, a file, a socket or the terminal alike; /dev/stdin cannot open a socket). */
async function readStdin(what: string): Promise<{ text: string } | { tooBig: true }> {
  if (process.stdin.isTTY) process.stderr.write(`reading ${what} from the terminal; end it with Ctrl-D\n`);
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
    length += chunk.length;
    if (length > TEXT_INPUT_CAP) {
      process.stdin.destroy();
      return { tooBig: true };
    }
    chunks.push(chunk);
  }
  return { text: Buffer.concat(chunks).toString('utf8') };
}

/**
 * An answer's words from `--message-file F` (`-`: stdin), or undefined without it; refused
 * when words were given on the command line too (`given`): one of them would be dropped.
 */
export async function messageFromFile(
  file: string | undefined,
  given: boolean,
  usage: string,
): Promise<string | undefined> {
  if (file === undefined) return undefined;
  if (given)
    throw new UsageError(
      `give your words once — on the command line or with --message-file F — not both; usage: ${usage}`,
    );
  return readTextInput(file, '--message-file', 'the message');
}
