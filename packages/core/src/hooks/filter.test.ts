import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../errors.js';
import { matchesFilter } from './filter-match.js';
import { parseFilter } from './filter.js';

const payload = JSON.parse(
  readFileSync(join(import.meta.dirname, '../../../../test/fixtures/github-issues-labeled.json'), 'utf8'),
) as unknown;
const labeled = { event: 'issues', payload };
const matches = (text: string, input: { event: string | null; payload: unknown } = labeled) =>
  matchesFilter(parseFilter(text), input);

describe('a filter against a GitHub issues.labeled delivery', () => {
  it('holds when every condition holds: the event header, the action, the label just added', () => {
    expect(matches('event=issues action=labeled label.name=agent')).toBe(true);
    expect(matches('event=issues action=labeled label.name=bug')).toBe(false);
    expect(matches('event=pull_request action=labeled')).toBe(false);
  });

  it('`a|b` is any of them; `!=` is none of them (a missing field too)', () => {
    expect(matches('action=opened|labeled|reopened')).toBe(true);
    expect(matches('action!=opened|closed')).toBe(true);
    expect(matches('action!=labeled|closed')).toBe(false);
    expect(matches('issue.no_such_field!=x')).toBe(true);
    expect(matches('issue.no_such_field=x')).toBe(false);
  });

  it('`*` and `[]` reach into every element of a list', () => {
    expect(matches('issue.labels.*.name=agent')).toBe(true);
    expect(matches('issue.labels[].name=bug')).toBe(true);
    expect(matches('issue.labels.*.name=wontfix')).toBe(false);
    expect(matches('issue.labels.*.name!=wontfix')).toBe(true);
    expect(matches('issue.labels.*.name!=bug')).toBe(false);
    expect(matches('issue.labels.1.name=agent issue.labels.0.name=bug')).toBe(true);
  });

  it('compares numbers, booleans and null as JSON writes them; objects equal nothing', () => {
    expect(matches('issue.number=42 repository.id=781260784')).toBe(true);
    expect(matches('issue.number=042')).toBe(false);
    expect(matches('issue.locked=false repository.private=false')).toBe(true);
    expect(matches('issue.milestone=null')).toBe(true);
    expect(matches('issue.user="[object Object]"')).toBe(false);
    expect(matches('issue.assignees=[]')).toBe(false);
  });

  it('a bare path is "present and not null"; `!path` its opposite (an issue, not a pull request)', () => {
    expect(matches('issue.user !issue.pull_request !issue.assignee')).toBe(true);
    expect(matches('issue.pull_request')).toBe(false);
    expect(matches('!issue.user')).toBe(false);
  });

  it('quotes a value with spaces, | or quotes in it; case counts', () => {
    const input = { event: 'issues', payload: { label: { name: 'good first issue' }, title: 'say "hi" | bye' } };
    expect(matches('label.name="good first issue"', input)).toBe(true);
    expect(matches('label.name=bug|"good first issue"', input)).toBe(true);
    expect(matches('title="say \\"hi\\" | bye"', input)).toBe(true);
    expect(matches('label.name="Good First Issue"', input)).toBe(false);
    expect(matches('label.name=""', { event: null, payload: { label: { name: '' } } })).toBe(true);
  });

  it('`event` is the header: no header, no event', () => {
    expect(matches('event=issues', { event: null, payload })).toBe(false);
    expect(matches('!event', { event: null, payload })).toBe(true);
    expect(matches('event!=push', { event: null, payload })).toBe(true);
  });

  it('finds nothing through prototypes or into scalars', () => {
    expect(matches('issue.constructor')).toBe(false);
    expect(matches('action.length')).toBe(false);
    expect(matches('issue.labels.9.name')).toBe(false);
  });

  it('reads the examples its reference gives', () => {
    expect(matches('event=issues action=labeled label.name=agent|shop')).toBe(true);
    expect(matches('issue.labels.*.name=bug !issue.pull_request sender.login!=dependabot[bot]')).toBe(true);
    const byBot = { event: 'issues', payload: { ...(payload as object), sender: { login: 'dependabot[bot]' } } };
    expect(matches('sender.login!=dependabot[bot]', byBot)).toBe(false);
  });

  it('keeps the text it was given (what the store keeps)', () => {
    expect(parseFilter('  event=issues   action=labeled ').text).toBe('  event=issues   action=labeled ');
  });
});

describe('parseFilter refuses, naming the bad part', () => {
  it.each([
    ['', 'the filter is empty; write conditions such as event=issues action=labeled label.name=agent'],
    ['event=issues label..name=x', 'the path "label..name" has an empty part'],
    ['=agent', 'the filter condition "=agent" names no field before the ='],
    ['label.name=', 'the filter condition "label.name=" has an empty value (write "" for an empty string)'],
    ['label.name==agent', 'the filter condition "label.name==agent" has == (write one =)'],
    ['label.name=a||b', 'the filter condition "label.name=a||b" has an empty value'],
    ['label.name="agent', 'the filter has a quote that is never closed'],
    ['label.name="a"b', 'the filter condition "label.name="a"b" has text after a closing quote'],
    ['label.name=a"b"', 'has a quote inside a value; quote the whole value'],
    ['label.na$me=x', 'the path "label.na$me" has a part "na$me" holding a character other than A-Z a-z 0-9 _ + -'],
    ['!', 'the path "" is empty'],
  ])('%j', (text, message) => {
    expect(() => parseFilter(text)).toThrow(UsageError);
    expect(() => parseFilter(text)).toThrow(message);
  });

  it('bounds the text, the conditions, the alternatives, a value and a path', () => {
    expect(() => parseFilter(`a=${'x'.repeat(1000)}`)).toThrow('the filter is longer than 1000 characters');
    expect(() => parseFilter(Array.from({ length: 17 }, (_, i) => `f${i}=x`).join(' '))).toThrow(
      'the filter has 17 conditions, more than 16',
    );
    expect(() => parseFilter(`a=${Array.from({ length: 17 }, (_, i) => `v${i}`).join('|')}`)).toThrow(
      'gives more than 16 alternatives',
    );
    expect(() => parseFilter(`a="${'x'.repeat(201)}"`)).toThrow('has a value longer than 200 characters');
    expect(() => parseFilter(`${Array.from({ length: 17 }, () => 'a').join('.')}=x`)).toThrow(
      'goes deeper than 16 parts',
    );
    expect(parseFilter(Array.from({ length: 16 }, (_, i) => `f${i}=x`).join(' ')).conditions).toHaveLength(16);
  });
});
