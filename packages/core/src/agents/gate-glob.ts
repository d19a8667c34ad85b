/** A gate's glob: `*` matches any text (a `/` too); every other character is itself. */
export function globRegExp(text: string, caseless = false): RegExp {
  const body = text
    .split('*')
    .map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${body}$`, caseless ? 'si' : 's');
}

export const globMatches = (glob: string, text: string, caseless = false) => globRegExp(glob, caseless).test(text);
