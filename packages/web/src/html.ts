/**
 * HTML built only through `html` templates: every interpolated value is escaped unless it is
 * itself a template's result (Html). Text from agents and workflows is data, never markup.
 */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/**
 * Characters that are not text: C0 controls but tab and line breaks, DEL, C1, and the bidi
 * embeddings, overrides and isolates that reorder what is shown ("Trojan source": an agent's
 * "invoice\u202etxt.exe" would read as "invoiceexe.txt"). Shown escaped, as the CLI shows them
 * (core's `inert`): \x1b, \u202e. The plain marks (LRM, RLM, ALM) stay: right-to-left text
 * uses them, and they reorder nothing beyond the punctuation next to them.
 */
const NOT_TEXT = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g;
const shown = (c: string) => {
  const code = c.charCodeAt(0);
  return code < 0x20 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
};

/** Escapes text for an element's content or a quoted attribute value. */
export function escapeHtml(value: unknown): string {
  return String(value ?? '')
    .replace(/[&<>"']/g, (c) => ENTITIES[c])
    .replace(NOT_TEXT, shown);
}

type Part = Html | string | number | boolean | null | undefined | readonly Part[];

function render(part: Part): string {
  if (part instanceof Html) return part.text;
  if (Array.isArray(part)) return part.map(render).join('');
  if (part === null || part === undefined || part === false) return '';
  return escapeHtml(part);
}

/** html`<p>${text}</p>`: values escaped, nested templates and arrays of them kept as markup. */
export function html(strings: TemplateStringsArray, ...values: Part[]): Html {
  let out = strings[0];
  values.forEach((v, i) => {
    out += render(v) + strings[i + 1];
  });
  return new Html(out);
}
