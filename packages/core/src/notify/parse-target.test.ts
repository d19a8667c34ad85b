import { describe, expect, it } from 'vitest';
import { describeEntry, describeTarget, parseTarget } from './parse-target.js';

describe('parseTarget', () => {
  it('reads every kind of entry', () => {
    expect(parseTarget('desktop')).toEqual({ kind: 'desktop' });
    expect(parseTarget(' webhook:https://hooks.example.com/in/abc?token=s3cret ')).toEqual({
      kind: 'webhook',
      url: 'https://hooks.example.com/in/abc?token=s3cret',
    });
    expect(parseTarget('webhook:http://127.0.0.1:8080/hook')).toEqual({
      kind: 'webhook',
      url: 'http://127.0.0.1:8080/hook',
    });
    expect(parseTarget('slack:https://hooks.slack.com/services/T0/B0/XyZ')).toEqual({
      kind: 'slack',
      url: 'https://hooks.slack.com/services/T0/B0/XyZ',
    });
    expect(parseTarget('command:my-notifier  --urgent\t-v')).toEqual({
      kind: 'command',
      argv: ['my-notifier', '--urgent', '-v'],
    });
    expect(parseTarget('command:notify')).toEqual({ kind: 'command', argv: ['notify'] });
  });

  it('names an unknown notifier and what is accepted', () => {
    expect(parseTarget('smtp:x')).toBe(
      'notify: "smtp:x" is not a notifier (use desktop, webhook:<url>, slack:<url>, command:<argv…>)',
    );
    expect(parseTarget('email')).toBe(
      'notify: "email" is not a notifier (use desktop, webhook:<url>, slack:<url>, command:<argv…>)',
    );
    expect(parseTarget('desktop:loud')).toMatch(/^notify: "desktop:loud" is not a notifier/);
  });

  it('refuses a webhook without an http(s) URL and a slack URL that is not https', () => {
    expect(parseTarget('webhook:ftp://files.example.com/x')).toBe(
      'notify: "webhook:ftp://files.example.com/…" is not a notifier (webhook needs an http(s) URL: webhook:https://…)',
    );
    expect(parseTarget('webhook:')).toBe(
      'notify: "webhook:" is not a notifier (webhook needs an http(s) URL: webhook:https://…)',
    );
    expect(parseTarget('webhook:not a url')).toMatch(/webhook needs an http\(s\) URL/);
    expect(parseTarget('slack:http://hooks.slack.com/services/T0/B0/XyZ')).toBe(
      'notify: "slack:http://hooks.slack.com/…" is not a notifier (slack needs an https URL: slack:https://hooks.slack.com/…)',
    );
  });

  it('splits a command as a shell splits words: quotes and backslashes, nothing expanded', () => {
    expect(parseTarget(`command:sh -c 'echo "$SHOP_QUESTION" >> /tmp/q.txt'`)).toEqual({
      kind: 'command',
      argv: ['sh', '-c', 'echo "$SHOP_QUESTION" >> /tmp/q.txt'],
    });
    expect(parseTarget('command:notify "two words" a\\ b "q\\"uote" \'\'')).toEqual({
      kind: 'command',
      argv: ['notify', 'two words', 'a b', 'q"uote', ''],
    });
    expect(parseTarget(`command:sh -c 'echo hi`)).toBe(
      `notify: "command:sh -c 'echo hi" is not a notifier (command has an unclosed single quote: quote as in a shell, e.g. command:sh -c 'echo "$SHOP_QUESTION"')`,
    );
  });

  it('refuses a command without a program', () => {
    expect(parseTarget('command:')).toBe(
      'notify: "command:" is not a notifier (command needs a program: command:<program> <args…>)',
    );
    expect(parseTarget('command:   ')).toMatch(/command needs a program/);
  });

  it('never repeats a secret from a mistyped entry', () => {
    const err = parseTarget('Slack:https://hooks.slack.com/services/T0/B0/S3CRET?x=TOKEN');
    expect(err).toBe(
      'notify: "Slack:https://hooks.slack.com/…" is not a notifier (use desktop, webhook:<url>, slack:<url>, command:<argv…>)',
    );
    expect(describeEntry('webhok:https://user:pw@h.example.com/p/S3CRET')).toBe('webhok:https://h.example.com/…');
  });

  it('describeEntry shows a good entry as describeTarget does', () => {
    expect(describeEntry('command:my-notifier --token S3CRET')).toBe('command:my-notifier');
    expect(describeEntry(' slack:https://hooks.slack.com/services/T0/B0/S3CRET ')).toBe(
      'slack:https://hooks.slack.com/…',
    );
    expect(describeEntry('desktop')).toBe('desktop');
  });
});

describe('describeTarget', () => {
  it('shows only scheme and host of a URL, with /… when there was more', () => {
    const shown = describeTarget({ kind: 'webhook', url: 'https://hooks.example.com/in/S3CRET?token=TOKEN#frag' });
    expect(shown).toBe('webhook:https://hooks.example.com/…');
    expect(shown).not.toMatch(/S3CRET|TOKEN|frag/);
    expect(describeTarget({ kind: 'webhook', url: 'https://hooks.example.com?token=TOKEN' })).toBe(
      'webhook:https://hooks.example.com/…',
    );
    expect(describeTarget({ kind: 'webhook', url: 'http://127.0.0.1:8080' })).toBe('webhook:http://127.0.0.1:8080');
    expect(describeTarget({ kind: 'slack', url: 'https://hooks.slack.com/services/T0/B0/XyZ' })).toBe(
      'slack:https://hooks.slack.com/…',
    );
    expect(describeTarget({ kind: 'webhook', url: 'https://user:pw@hooks.example.com/' })).toBe(
      'webhook:https://hooks.example.com',
    );
  });

  it('shows the program of a command, not its arguments, and desktop as is', () => {
    expect(describeTarget({ kind: 'command', argv: ['my-notifier', '--token', 'S3CRET'] })).toBe('command:my-notifier');
    expect(describeTarget({ kind: 'desktop' })).toBe('desktop');
  });
});
