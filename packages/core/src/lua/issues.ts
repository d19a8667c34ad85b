import type * as z from 'zod';

/** Formats zod issues as one line: "key: problem; key: problem". */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((i) => {
      const path = i.path.join('.');
      if (i.code === 'unrecognized_keys')
        return `${path ? `${path}: ` : ''}unknown key ${i.keys.map((k) => `'${k}'`).join(', ')}`;
      return path && !i.message.startsWith(path) ? `${path}: ${i.message}` : i.message;
    })
    .join('; ');
}
