import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../errors.js';
import { deliveryId, eventName } from './delivery.js';
import { githubDelivery } from './testing/github-delivery.js';

const body = Buffer.from('{"action":"labeled"}');

describe('deliveryId', () => {
  it("is GitHub's delivery GUID, kept when GitHub redelivers", () => {
    const first = githubDelivery({ action: 'labeled' }, 's');
    const again = githubDelivery({ action: 'labeled' }, 's', { delivery: first.headers['X-GitHub-Delivery'] });
    expect(first.headers['X-GitHub-Delivery']).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
    );
    expect(deliveryId(first.headers, first.body)).toEqual({
      id: first.headers['X-GitHub-Delivery'],
      from: 'X-GitHub-Delivery',
    });
    expect(deliveryId(again.headers, again.body).id).toBe(deliveryId(first.headers, first.body).id);
  });

  it('reads X-Shop-Delivery from other senders (lower-case names, as node:http gives them)', () => {
    expect(deliveryId({ 'x-shop-delivery': 'build-981' }, body)).toEqual({ id: 'build-981', from: 'X-Shop-Delivery' });
  });

  it("is the body's SHA-256 when no header names the delivery: the same body again is the same delivery", () => {
    const hex = createHash('sha256').update(body).digest('hex');
    expect(deliveryId({}, body)).toEqual({ id: `sha256:${hex}`, from: 'body' });
    expect(deliveryId({}, Buffer.from('{"action":"opened"}')).id).not.toBe(`sha256:${hex}`);
  });

  it.each([
    ['empty', ''],
    ['a space', 'build 981'],
    ['a control character', 'a\u001bb'],
    ['too long', 'x'.repeat(201)],
  ])('refuses a malformed delivery header (%s) without echoing it', (_what, value) => {
    const call = () => deliveryId({ 'x-github-delivery': value }, body);
    expect(call).toThrow(UsageError);
    expect(call).toThrow(
      'the X-GitHub-Delivery header must be 1-200 of A-Z a-z 0-9 _ . : - (a GUID such as GitHub sends)',
    );
  });
});

describe('eventName', () => {
  it('is X-GitHub-Event, else X-Shop-Event, else null', () => {
    expect(eventName({ 'X-GitHub-Event': 'issues' })).toBe('issues');
    expect(eventName({ 'x-shop-event': 'ci.finished' })).toBe('ci.finished');
    expect(eventName({})).toBeNull();
  });

  it('refuses a malformed event header', () => {
    expect(() => eventName({ 'x-github-event': 'issues; rm -rf' })).toThrow(
      'the X-GitHub-Event header must be 1-100 of A-Z a-z 0-9 _ . : - (an event name such as issues)',
    );
    expect(() => eventName({ 'x-shop-event': 'e'.repeat(101) })).toThrow(UsageError);
  });
});
