import { issueLine, validateAnswers } from '@shop/core';
import type { Decision } from '@shop/core';
import type { Asker } from './asker.js';

/** Walks a pause's decisions as terminal prompts, defaults pre-filled, re-asking until each is valid. */
export async function promptDecisions(
  asker: Asker,
  decisions: Decision[],
  out: (line: string) => void,
): Promise<Record<string, unknown>> {
  const answers: Record<string, unknown> = {};
  for (const d of decisions) {
    out('');
    out(`${d.id}: ${d.prompt}${d.required ? '' : ' (optional)'}`);
    if (d.description) out(`  ${d.description}`);
    for (;;) {
      const value = await askOne(asker, d, out);
      const check = validateAnswers([d], value === undefined ? {} : { [d.id]: value });
      if (check.ok) {
        answers[d.id] = check.answers[d.id].value;
        break;
      }
      out(`  ✗ ${check.issues.map(issueLine).join('; ')}`);
    }
  }
  return answers;
}

/** One raw answer; undefined means "take the default / leave it empty". */
async function askOne(asker: Asker, d: Decision, out: (line: string) => void): Promise<unknown> {
  const c = d.constraints ?? {};
  const def = d.default ?? undefined;
  switch (d.type) {
    case 'approval':
      return asker.yesNo('  approve?', typeof def === 'boolean' ? def : undefined);
    case 'choice':
    case 'multi_choice': {
      const options = d.options ?? [];
      options.forEach((o, i) =>
        out(
          `  ${i + 1}) ${o.label}${o.label !== o.value ? ` (${o.value})` : ''}${o.description ? ` — ${o.description}` : ''}`,
        ),
      );
      const shown = def === undefined ? '' : ` [${Array.isArray(def) ? def.join(',') : String(def)}]`;
      const many = d.type === 'multi_choice';
      const raw = await asker.ask(
        `  ${many ? 'choose one or more (numbers or values, comma-separated)' : `choose 1-${options.length}`}${shown}: `,
      );
      if (!raw) return undefined;
      const pick = (s: string) => (/^\d+$/.test(s) && options[Number(s) - 1] ? options[Number(s) - 1].value : s);
      return many
        ? raw
            .split(',')
            .map((s) => pick(s.trim()))
            .filter(Boolean)
        : pick(raw);
    }
    case 'number': {
      const raw = await asker.ask(`  number${range(c.min, c.max)}${def === undefined ? '' : ` [${def}]`}: `);
      return raw ? (Number.isNaN(Number(raw)) ? raw : Number(raw)) : undefined;
    }
    case 'date': {
      const raw = await asker.ask(`  date (YYYY-MM-DD)${def === undefined ? '' : ` [${def}]`}: `);
      return raw || undefined;
    }
    case 'text': {
      const rules = [
        c.min !== undefined ? `at least ${c.min} characters` : '',
        c.max !== undefined ? `at most ${c.max}` : '',
        c.pattern ? `matching /${c.pattern}/` : '',
      ]
        .filter(Boolean)
        .join(', ');
      const raw = await asker.ask(`  text${rules ? ` (${rules})` : ''}${def === undefined ? '' : ` [${def}]`}: `);
      return raw || undefined;
    }
  }
}

function range(min?: number, max?: number): string {
  if (min !== undefined && max !== undefined) return ` (${min} to ${max})`;
  if (min !== undefined) return ` (≥ ${min})`;
  if (max !== undefined) return ` (≤ ${max})`;
  return '';
}
