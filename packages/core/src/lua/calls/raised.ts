import { DamagedLogError } from '../../errors.js';

/**
 * A call's recorded outcome that raises a Lua error at the call's line instead of returning
 * (a child run stopped, a workflow that is not there). Recorded as the call's result, so a
 * replay raises the same error where the run first did, whatever the world says now.
 */
const FIELD = '__shop_raise';

export function raised(message: string): Record<string, string> {
  return { [FIELD]: message };
}

/** A recorded result's value, from the JSON the store keeps (ReplayRecord.resultJson). */
export function recordedValue(json: string | null): unknown {
  if (json === null) return null;
  try {
    return JSON.parse(json);
  } catch (e) {
    throw new DamagedLogError((e as Error).message);
  }
}

/**
 * Whether a recorded result's JSON may raise: only a text that names the field can, so a
 * replayed call whose value Lua drops needs no parse to know it does not.
 */
export function mayRaise(json: string | null): boolean {
  return json !== null && json.includes(`"${FIELD}"`);
}

/** The message a recorded result raises, or null for a plain value. */
export function raisedMessage(value: unknown): string | null {
  if (value === null || typeof value !== 'object' || !Object.hasOwn(value, FIELD)) return null;
  const keys = Object.keys(value);
  return keys.length === 1 && keys[0] === FIELD ? String((value as Record<string, unknown>)[FIELD]) : null;
}
