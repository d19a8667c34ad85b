import { statSync } from 'node:fs';
import { join } from 'node:path';
import { agentDirs, loadAgent, type AgentDef } from './agent-def.js';

interface Cached {
  def: AgentDef;
  /** Which agent folder it came from: an earlier folder gaining the file takes over. */
  dir: number;
  mtimeMs: number;
  size: number;
}

/**
 * loadAgent for a driver that calls agents many times: a definition is read, parsed and
 * checked once, then again only when its file changes (one stat per call). An edited agent
 * file is picked up by the next call, as before.
 */
export function cachedAgentLoader(projectRoot: string): (name: string) => AgentDef {
  const dirs = agentDirs(projectRoot);
  const cache = new Map<string, Cached>();
  return (name) => {
    const hit = cache.get(name);
    if (hit) {
      const st = statSync(hit.def.file, { throwIfNoEntry: false });
      const shadowed = dirs.slice(0, hit.dir).some((d) => statSync(join(d, `${name}.md`), { throwIfNoEntry: false }));
      if (st && !shadowed && st.mtimeMs === hit.mtimeMs && st.size === hit.size) return hit.def;
      cache.delete(name);
    }
    const def = loadAgent(projectRoot, name);
    const st = statSync(def.file, { throwIfNoEntry: false });
    if (st)
      cache.set(name, {
        def,
        dir: dirs.findIndex((d) => def.file === join(d, `${name}.md`)),
        mtimeMs: st.mtimeMs,
        size: st.size,
      });
    return def;
  };
}
