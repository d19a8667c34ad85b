import type { Key } from 'ink';

/**
 * Line editing for one text value, as a pure step: the new value after a key, or null when
 * the key is not an edit (Enter, Esc, arrows are left to the caller).
 */
export function editText(value: string, input: string, key: Key): string | null {
  if (key.backspace || key.delete) return value.slice(0, -1);
  if (key.ctrl && input === 'u') return '';
  if (
    key.ctrl ||
    key.meta ||
    key.return ||
    key.escape ||
    key.tab ||
    key.upArrow ||
    key.downArrow ||
    key.leftArrow ||
    key.rightArrow
  )
    return null;
  // Text that came at once (a paste) is one edit; line breaks in it become spaces.
  const text = input.replace(/[\r\n]+/g, ' ').replace(/[\u0000-\u001f\u007f]/g, '');
  return text ? value + text : null;
}
