import { UsageError } from '@shop/core';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { parseCommand } from './parse-command.js';

describe('parseCommand: argv read against the command table, typed from it', () => {
  it('names the command it parsed for, and types each flag from its declaration', () => {
    const args = parseCommand('claim', ['33.4', '--by', 'ann', '--release']);
    expect(args).toEqual({
      command: 'claim',
      positionals: ['33.4'],
      values: { by: 'ann', release: true, force: false, json: false, help: false },
    });
    // What the handler may rely on, checked by the compiler (tsconfig.test.json).
    expectTypeOf(args.values.by).toEqualTypeOf<string | undefined>();
    expectTypeOf(args.values.release).toEqualTypeOf<boolean>();
  });

  it('a boolean not given reads false; a string not given is undefined, unless its declaration has a default', () => {
    expect(parseCommand('list', []).values).toEqual({ active: false, waiting: false, json: false, help: false });
    const serve = parseCommand('serve', []);
    expect(serve.values).toMatchObject({ port: '7878', host: '127.0.0.1' });
    expect(serve.values['public-url']).toBeUndefined();
    expectTypeOf(serve.values.host).toEqualTypeOf<string>();
    expect(parseCommand('serve', ['--host', '0.0.0.0']).values.host).toBe('0.0.0.0');
  });

  it('a repeatable flag reads as the list of its values', () => {
    const { values } = parseCommand('report', ['DONE', '--field', 'a=1', '--field', 'b=2']);
    expect(values.field).toEqual(['a=1', 'b=2']);
    expectTypeOf(values.field).toEqualTypeOf<string[] | undefined>();
  });

  it('refuses an unknown flag, a missing value and an extra argument with one line naming the command', () => {
    const refusal = (name: Parameters<typeof parseCommand>[0], argv: string[]) => {
      try {
        parseCommand(name, argv);
      } catch (e) {
        expect(e).toBeInstanceOf(UsageError);
        return (e as Error).message;
      }
      throw new Error(`shop ${name} ${argv.join(' ')} was not refused`);
    };
    expect(refusal('list', ['--stauts', 'x'])).toBe(
      'unknown flag "--stauts" for shop list; did you mean "--status"? (shop list --help lists them)',
    );
    expect(refusal('init', ['--database'])).toBe(
      'flag --database needs a value (shop init); usage: shop init [--database URL]',
    );
    expect(refusal('approve', ['33', 'two', 'words'])).toBe(
      'unexpected argument "two words" (shop approve); give your words with --message "two words"; usage: shop approve <id | handle> [--message M | --message-file F] [--call K] [--by NAME] [--yes] [--json]',
    );
    // --help wins over extra arguments: the help is shown, not a refusal.
    expect(parseCommand('gate', ['x', '--help']).values.help).toBe(true);
  });
});
