import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { deliveryId, eventName } from '../delivery.js';
import { verifySignature } from '../signature.js';
import { githubDelivery } from './github-delivery.js';

const raw = readFileSync(join(import.meta.dirname, '../../../../../test/fixtures/github-issues-labeled.json'));
const payload = JSON.parse(raw.toString('utf8')) as Record<string, any>;

describe('the GitHub issues.labeled fixture and its delivery', () => {
  it('has the shape GitHub documents for issues.labeled', () => {
    expect(Object.keys(payload)).toEqual(['action', 'issue', 'label', 'repository', 'organization', 'sender']);
    expect(payload.action).toBe('labeled');
    expect(payload.issue).toMatchObject({
      number: 42,
      state: 'open',
      html_url: 'https://github.com/acme/widgets/issues/42',
    });
    expect(typeof payload.issue.title).toBe('string');
    expect(typeof payload.issue.body).toBe('string');
    expect(payload.issue.user.login).toBe('mira-k');
    expect(payload.issue.labels.map((l: { name: string }) => l.name)).toEqual(['bug', 'agent']);
    expect(payload.label.name).toBe('agent');
    expect(payload.repository.full_name).toBe('acme/widgets');
    expect(payload.sender.login).toBe('tomasz-dev');
  });

  it('comes with the headers GitHub sends, signed both ways, naming the event and a fresh delivery', () => {
    const one = githubDelivery(payload, 'secret');
    const two = githubDelivery(payload, 'secret');
    expect(Object.keys(one.headers).sort()).toEqual([
      'Content-Type',
      'User-Agent',
      'X-GitHub-Delivery',
      'X-GitHub-Event',
      'X-GitHub-Hook-ID',
      'X-GitHub-Hook-Installation-Target-ID',
      'X-GitHub-Hook-Installation-Target-Type',
      'X-Hub-Signature',
      'X-Hub-Signature-256',
    ]);
    expect(one.headers['User-Agent']).toMatch(/^GitHub-Hookshot\//);
    expect(one.headers['Content-Type']).toBe('application/json');
    expect(one.headers['X-GitHub-Hook-Installation-Target-ID']).toBe(String(payload.repository.id));
    expect(one.headers['X-Hub-Signature']).toMatch(/^sha1=[0-9a-f]{40}$/);
    expect(verifySignature({ secret: 'secret', rawBody: one.body, headers: one.headers }).ok).toBe(true);
    expect(eventName(one.headers)).toBe('issues');
    expect(deliveryId(one.headers, one.body).id).not.toBe(deliveryId(two.headers, two.body).id);
    expect(JSON.parse(one.body.toString('utf8'))).toEqual(payload);
  });
});
