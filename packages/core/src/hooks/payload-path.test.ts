import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../errors.js';
import { MAX_PAYLOAD_KEY_CHARS, parsePayloadPath, valueAt } from './payload-path.js';

const payload = JSON.parse(
  readFileSync(join(import.meta.dirname, '../../../../test/fixtures/github-issues-labeled.json'), 'utf8'),
) as Record<string, any>;

describe('valueAt', () => {
  it('reads a prompt and a key from a GitHub payload', () => {
    expect(valueAt(payload, 'issue.body')).toBe(payload.issue.body);
    expect(valueAt(payload, 'issue.body')).toContain('the defaults are used —');
    expect(valueAt(payload, 'repository.full_name', MAX_PAYLOAD_KEY_CHARS)).toBe('acme/widgets');
    expect(valueAt(payload, 'issue.labels.1.name')).toBe('agent');
  });

  it('writes numbers and booleans as JSON does, objects and lists as their JSON text', () => {
    expect(valueAt(payload, 'issue.number')).toBe('42');
    expect(valueAt(payload, 'issue.locked')).toBe('false');
    expect(valueAt(payload, 'label')).toBe(JSON.stringify(payload.label));
    expect(valueAt(payload, 'issue.assignees')).toBe('[]');
  });

  it('is undefined for a missing field or null', () => {
    expect(valueAt(payload, 'issue.milestone')).toBeUndefined();
    expect(valueAt(payload, 'issue.pull_request.url')).toBeUndefined();
    expect(valueAt(null, 'issue.body')).toBeUndefined();
  });

  it('caps the text, never cutting a surrogate pair in two', () => {
    expect(valueAt({ body: 'x'.repeat(70_000) }, 'body')).toHaveLength(65_536);
    expect(valueAt({ key: 'ab😀' }, 'key', 3)).toBe('ab');
    expect(valueAt({ big: { list: Array.from({ length: 100 }, (_, i) => i) } }, 'big', 10)).toBe('{"list":[0');
  });

  it('refuses a path through `*`: a prompt or a key is one value', () => {
    expect(() => valueAt(payload, 'issue.labels.*.name')).toThrow(UsageError);
    expect(() => valueAt(payload, 'issue.labels[].name')).toThrow('names no single value');
    expect(() => valueAt(payload, parsePayloadPath('issue.labels.*.name'))).toThrow('names no single value');
  });
});

describe('parsePayloadPath', () => {
  it('splits dotted names, `*` and `name[]`', () => {
    expect(parsePayloadPath('issue.labels[].name').parts).toEqual(['issue', 'labels', '*', 'name']);
    expect(parsePayloadPath('issue.labels.*.name').parts).toEqual(['issue', 'labels', '*', 'name']);
    expect(parsePayloadPath('issue.reactions.+1').parts).toEqual(['issue', 'reactions', '+1']);
  });

  it('refuses an empty, over-long or odd path in one line', () => {
    expect(() => parsePayloadPath('')).toThrow('the path "" is empty');
    expect(() => parsePayloadPath('a'.repeat(201))).toThrow('is longer than 200 characters');
    expect(() => parsePayloadPath('issue.')).toThrow('has an empty part');
    expect(() => parsePayloadPath('issue[0]')).toThrow('holding a character other than');
  });
});
