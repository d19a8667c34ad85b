import { describe, expect, it } from 'vitest';
import type { AskNotice } from './ask-notice.js';
import { desktopText, noteLine, noticeEnv, slackText, waitedText, waitsPhrase } from './notice-text.js';

const notice: AskNotice = {
  event: 'waiting',
  run: 12,
  spec: 'release',
  call: '4',
  ask: 1,
  handle: '12.4',
  awaiting: 'checkpoint',
  agent: '_checkpoint',
  question: 'Tag it?',
  answer_with: [],
  answer_url: null,
  waited_seconds: 0,
  project: '/p',
  at: '2025-01-02T03:04:05+01:00',
};

describe('notice text', () => {
  it('says how long it waited, in words people read', () => {
    expect([0, 59, 60, 3599, 3600, 7500, 86_400, 90_000].map(waitedText)).toEqual([
      '0 s',
      '59 s',
      '1 min',
      '59 min',
      '1 h',
      '2 h 5 min',
      '1 d',
      '1 d 1 h',
    ]);
  });

  it('words each event', () => {
    const at = (event: AskNotice['event']) => waitsPhrase({ ...notice, event, waited_seconds: 600 });
    expect(at('waiting')).toBe('waits for you');
    expect(at('reminder')).toBe('still waits for you (10 min)');
    expect(at('escalation')).toBe('waits for you (escalated after 10 min)');
    expect(at('timeout')).toBe('still waits for you (timed out after 10 min)');
  });

  it('leaves out the answer part when there is no answer command', () => {
    expect(slackText(notice)).toBe('Shop run 12 (release) waits for you: Tag it?');
    expect(noteLine(notice)).toBe('shop: run 12 (release) waits for you: Tag it?');
  });

  it('shows the answer link when the notice has one: Slack, desktop, the stderr note and a command notifier', () => {
    const url = 'https://shop.example.com/a/eyJyIjoxMn0.sig';
    const withLink = { ...notice, answer_with: ['shop approve 12.4'], answer_url: url };
    expect(slackText(withLink)).toBe(
      `Shop run 12 (release) waits for you: Tag it? — answer: shop approve 12.4 or open ${url}`,
    );
    expect(slackText({ ...withLink, answer_with: [] })).toBe(
      `Shop run 12 (release) waits for you: Tag it? — answer at ${url}`,
    );
    expect(noteLine(withLink)).toBe(`shop: run 12 (release) waits for you: Tag it? — shop approve 12.4 — ${url}`);
    expect(desktopText(withLink).body).toBe(`Tag it?\nshop approve 12.4\n${url}`);
    expect(noticeEnv(withLink).SHOP_ANSWER_URL).toBe(url);
    expect(JSON.parse(noticeEnv(withLink).SHOP_NOTICE_JSON).answer_url).toBe(url);
    // No public URL recorded: no link anywhere, an empty variable.
    expect(desktopText({ ...withLink, answer_url: null }).body).toBe('Tag it?\nshop approve 12.4');
    expect(noticeEnv(notice).SHOP_ANSWER_URL).toBe('');
  });
});
