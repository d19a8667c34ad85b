import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import { MODULE_FILE_BYTES, MODULE_FOLDER, moduleFile, type ModuleRead, type ModuleSource } from './lua-modules.js';

const count = (n: number) => n.toLocaleString('en-US');

/**
 * Modules on disk under `libDir`, each shown as `shown(path)` (its chunk name: errors and
 * tracebacks name it). A module is the project's own file, but an agent may have put a FIFO or
 * a huge file in its place: opened without blocking, a regular file only, read up to the bound.
 */
function moduleFiles(libDir: string, shown: (path: string) => string): ModuleSource {
  return {
    read(name: string): ModuleRead {
      const path = join(libDir, moduleFile(name));
      const file = shown(path);
      let fd: number;
      try {
        fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code === 'ENOENT' || code === 'ENOTDIR')
          return { problem: `no module file ${file} (create it, or fix the name)` };
        return { problem: `cannot read ${file}: ${code === 'EACCES' ? 'permission denied' : (code ?? 'error')}` };
      }
      try {
        const st = fstatSync(fd);
        if (!st.isFile()) return { problem: `${file} is not a regular file` };
        const tooLarge = (size: number) => ({
          problem: `${file} is ${count(size)} bytes, over the 1 MiB (${count(MODULE_FILE_BYTES)} bytes) a module may be; split it into smaller modules`,
        });
        if (st.size > MODULE_FILE_BYTES) return tooLarge(st.size);
        // One byte more than the bound: a file that grew since fstat is told apart, not cut.
        const buf = Buffer.allocUnsafe(MODULE_FILE_BYTES + 1);
        let total = 0;
        for (let n; total < buf.length && (n = readSync(fd, buf, total, buf.length - total, null)) > 0;) total += n;
        if (total > MODULE_FILE_BYTES) return tooLarge(total);
        return { file, source: buf.toString('utf8', 0, total) };
      } catch (e) {
        return { problem: `cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? 'error'}` };
      } finally {
        closeSync(fd);
      }
    },
  };
}

/** The project's modules folder: workflows/lib (whichever file the workflow is, it requires from here). */
export const modulesDir = (root: string) => join(root, 'workflows', MODULE_FOLDER);

/** The project's modules, each shown from its root (workflows/lib/git/helpers.lua). */
export function projectModules(root: string): ModuleSource {
  return moduleFiles(modulesDir(root), (path) => {
    const rel = relative(root, path);
    return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path;
  });
}
