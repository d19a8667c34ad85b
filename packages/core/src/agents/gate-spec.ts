import { capText } from '../text.js';

/**
 * How gates are written — in an agent's front matter (`gates:`), a workflow's config{ gates = … },
 * and SHOP_GATES for Shop's hook — read into blocks. A list of rules holds what they name
 * (`["Bash(git push --force*)", "Write(.env*)"]`). A block holds by default:
 * `{ hold: [Bash], allow: ["Bash(npm test*)"] }` — a call a hold rule names waits for a person
 * unless every part of it is named by an allow rule of the same block. Blocks never weaken one
 * another: a call any block holds waits.
 */
export interface GateBlock {
  hold: string[];
  allow: string[];
}

/** A rule: a tool name glob (any case), optionally with a glob on its command or file in parentheses. */
export const RULE = /^([A-Za-z0-9_*.-]+)(?:\((.*)\))?$/s;

/** The problem with a rule, or null. */
function gateProblem(rule: string): string | null {
  if (!RULE.test(rule.trim()))
    return `gate ${JSON.stringify(capText(rule, 80))} must look like Tool or Tool(argument glob), e.g. Bash(git push --force*)`;
  return null;
}

const KEYS = ['hold', 'allow'];
const SHAPE = 'give a list of rules (each held), or { hold: [rules], allow: [rules] } (held unless allowed)';

/** gates as written, read into blocks; or the one-line problem with them. */
export function readGates(value: unknown): GateBlock[] | string {
  if (value === undefined || value === null) return [];
  if (typeof value === 'string') return block([value], []);
  if (Array.isArray(value)) {
    if (value.every((v) => typeof v === 'string')) return value.length ? block(value, []) : [];
    if (!value.every((v) => isRecord(v))) return `gates: ${SHAPE}, not a mix of both`;
    const blocks: GateBlock[] = [];
    for (const v of value) {
      const b = readBlock(v as Record<string, unknown>);
      if (typeof b === 'string') return b;
      blocks.push(...b);
    }
    return blocks;
  }
  if (isRecord(value)) return Object.keys(value).length ? readBlock(value) : [];
  return `gates: ${SHAPE}`;
}

function readBlock(o: Record<string, unknown>): GateBlock[] | string {
  const unknown = Object.keys(o).filter((k) => !KEYS.includes(k));
  if (unknown.length)
    return `gates: unknown key ${unknown.map((k) => `'${capText(k, 40)}'`).join(', ')} (a block has hold and allow)`;
  const hold = rules(o.hold);
  const allow = o.allow === undefined ? [] : rules(o.allow);
  if (hold === null || allow === null)
    return `gates: hold and allow are lists of rules, e.g. { hold: [Bash], allow: ["Bash(npm test*)"] }`;
  if (!hold.length)
    return 'gates: a { hold, allow } block needs at least one hold rule (hold: [Bash] holds every command)';
  return block(hold, allow);
}

function block(hold: string[], allow: string[]): GateBlock[] | string {
  const problem = [...hold, ...allow].map(gateProblem).find(Boolean);
  if (problem) return problem;
  return [{ hold: hold.map((r) => r.trim()), allow: allow.map((r) => r.trim()) }];
}

/** A list of rules; a Lua empty table ({}) is an empty list, one rule may stand alone. */
function rules(v: unknown): string[] | null {
  if (typeof v === 'string') return [v];
  if (isRecord(v) && !Object.keys(v).length) return [];
  return Array.isArray(v) && v.every((r) => typeof r === 'string') ? v : null;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Whether an agent with these gates may ask a person its own questions (AskUserQuestion held). */
export const asksQuestions = (blocks: readonly GateBlock[]) =>
  blocks.some((b) => b.hold.some((r) => /^askuserquestion$/i.test(r)));

/**
 * Blocks as a person reads them in one line: a block that only holds as its rules
 * (`Bash(git push --force*), Write(.env*)`), one that holds by default as `hold Bash allow
 * Bash(npm test*)`; blocks apart by `; `. Recorded gates that do not read as blocks: null.
 */
export function describeGates(value: unknown): string | null {
  const blocks = readGates(value);
  if (typeof blocks === 'string') return null;
  return blocks
    .map((b) => (b.allow.length ? `hold ${b.hold.join(', ')} allow ${b.allow.join(', ')}` : b.hold.join(', ')))
    .join('; ');
}
