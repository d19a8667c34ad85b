import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * A file that ships with Shop (schema.sql, the example workflows), found by walking up from
 * the module asking for it: the same answer from packages/core/dist, the bundled CLI in
 * packages/cli/dist, or a global install (a link to this checkout).
 */
export function shippedFile(rel: string, from: string): string {
  for (let dir = dirname(fileURLToPath(from)); ;) {
    const path = join(dir, rel);
    if (existsSync(path)) return path;
    const up = dirname(dir);
    if (up === dir) throw new Error(`Shop's ${rel} is missing next to ${fileURLToPath(from)}; reinstall Shop`);
    dir = up;
  }
}
