import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { signBody, verifySignature } from './signature.js';
import { githubDelivery, shopDelivery } from './testing/github-delivery.js';

/** GitHub's published test values ("Validating webhook deliveries" → Testing the webhook payload validation). */
const GITHUB_SECRET = "It's a Secret to Everybody";
const GITHUB_PAYLOAD = 'Hello, World!';
const GITHUB_SIGNATURE = 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17';

const FIXTURE = join(import.meta.dirname, '../../../../test/fixtures/github-issues-labeled.json');
const rawBody = Buffer.from(GITHUB_PAYLOAD);

describe('verifySignature', () => {
  it("accepts GitHub's published test vector", () => {
    expect(signBody(GITHUB_SECRET, rawBody)).toBe(GITHUB_SIGNATURE);
    expect(
      verifySignature({ secret: GITHUB_SECRET, rawBody, headers: { 'x-hub-signature-256': GITHUB_SIGNATURE } }),
    ).toEqual({ ok: true, header: 'X-Hub-Signature-256' });
  });

  it('reads X-Shop-Signature-256 the same way, header names in any case, hex in either case', () => {
    const headers = { 'X-Shop-Signature-256': GITHUB_SIGNATURE.toUpperCase().replace('SHA256=', 'sha256=') };
    expect(verifySignature({ secret: GITHUB_SECRET, rawBody, headers })).toEqual({
      ok: true,
      header: 'X-Shop-Signature-256',
    });
  });

  it('refuses another secret, another body, or one flipped digit as a mismatch', () => {
    const headers = { 'x-hub-signature-256': GITHUB_SIGNATURE };
    const flipped = { 'x-hub-signature-256': GITHUB_SIGNATURE.replace(/7$/, '6') };
    for (const check of [
      verifySignature({ secret: "It's a secret to everybody", rawBody, headers }),
      verifySignature({ secret: GITHUB_SECRET, rawBody: Buffer.from('Hello, World!\n'), headers }),
      verifySignature({ secret: GITHUB_SECRET, rawBody, headers: flipped }),
    ])
      expect(check).toMatchObject({ ok: false, reason: 'mismatch' });
  });

  it('refuses a delivery with no SHA-256 signature, even one with the SHA-1 X-Hub-Signature', () => {
    const { headers } = githubDelivery(GITHUB_PAYLOAD, GITHUB_SECRET);
    delete headers['X-Hub-Signature-256'];
    const check = verifySignature({ secret: GITHUB_SECRET, rawBody, headers });
    expect(check).toMatchObject({ ok: false, reason: 'unsigned' });
    expect(!check.ok && check.message).toMatch(/X-Hub-Signature-256 or X-Shop-Signature-256/);
  });

  it.each([
    ['no prefix', GITHUB_SIGNATURE.slice('sha256='.length)],
    ['sha1', 'sha1=7d38cdd689735b008b3c702edd92eea23791c5f6'],
    ['short hex', GITHUB_SIGNATURE.slice(0, -2)],
    ['long hex', `${GITHUB_SIGNATURE}00`],
    ['non-hex digit', GITHUB_SIGNATURE.replace(/7$/, 'g')],
    ['a space', `${GITHUB_SIGNATURE} `],
    ['sent twice (node joins them)', `${GITHUB_SIGNATURE}, ${GITHUB_SIGNATURE}`],
    ['huge', `sha256=${'a'.repeat(100_000)}`],
  ])('refuses a malformed header: %s', (_what, value) => {
    const check = verifySignature({ secret: GITHUB_SECRET, rawBody, headers: { 'x-hub-signature-256': value } });
    expect(check).toMatchObject({ ok: false, reason: 'malformed' });
  });

  it('needs every signature header present to match, not just one', () => {
    const headers = { 'x-hub-signature-256': GITHUB_SIGNATURE, 'x-shop-signature-256': `sha256=${'0'.repeat(64)}` };
    expect(verifySignature({ secret: GITHUB_SECRET, rawBody, headers })).toMatchObject({
      ok: false,
      reason: 'mismatch',
    });
  });

  it('refuses everything when the hook has no secret (an empty key would let anyone sign)', () => {
    const headers = { 'x-hub-signature-256': signBody('', rawBody) };
    expect(verifySignature({ secret: '', rawBody, headers })).toMatchObject({ ok: false, reason: 'no-secret' });
  });

  it('signs the raw bytes: the fixture as GitHub sent it verifies, the same JSON written again does not', () => {
    const raw = readFileSync(FIXTURE);
    const { headers, body } = githubDelivery(raw, 'hook secret');
    expect(body.equals(raw)).toBe(true);
    expect(verifySignature({ secret: 'hook secret', rawBody: raw, headers }).ok).toBe(true);
    const rewritten = Buffer.from(JSON.stringify(JSON.parse(raw.toString('utf8'))));
    expect(verifySignature({ secret: 'hook secret', rawBody: rewritten, headers })).toMatchObject({
      reason: 'mismatch',
    });
  });

  it('a shop delivery verifies through X-Shop-Signature-256', () => {
    const { headers, body } = shopDelivery({ ok: true }, 's3cret', { event: 'ci.finished', delivery: 'build-981' });
    expect(verifySignature({ secret: 's3cret', rawBody: body, headers })).toEqual({
      ok: true,
      header: 'X-Shop-Signature-256',
    });
  });
});
