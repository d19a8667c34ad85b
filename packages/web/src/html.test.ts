import { describe, expect, it } from 'vitest';
import { escapeHtml, html } from './html.js';

describe('html', () => {
  it('escapes interpolated text, keeps nested templates', () => {
    const payload = '<script>alert("x")</script>';
    const page = html`<p title="${payload}">${payload}${html`<b>${'&'}</b>`}${[html`<i>1</i>`, '<2>']}</p>`;
    expect(page.text).toBe(
      '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;<b>&amp;</b><i>1</i>&lt;2&gt;</p>',
    );
  });
  it('drops null, undefined and false', () => {
    expect(html`${null}${undefined}${false}${0}`.text).toBe('0');
    expect(escapeHtml("'")).toBe('&#39;');
  });
});
