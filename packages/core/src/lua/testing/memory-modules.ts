import { moduleFile, type ModuleSource } from '../lua-modules.js';

/**
 * Modules from memory, keyed by their file under the lib folder ("git/helpers.lua"), shown as
 * workflows/lib/…; a Map is read as it is at each require. `reads` counts each file's reads.
 */
export function memoryModules(
  files: Record<string, string> | Map<string, string>,
): ModuleSource & { reads: Map<string, number> } {
  const reads = new Map<string, number>();
  return {
    reads,
    read(name) {
      const rel = moduleFile(name);
      const file = `workflows/lib/${rel}`;
      reads.set(rel, (reads.get(rel) ?? 0) + 1);
      const source = files instanceof Map ? files.get(rel) : files[rel];
      return source === undefined
        ? { problem: `no module file ${file} (create it, or fix the name)` }
        : { file, source };
    },
  };
}
