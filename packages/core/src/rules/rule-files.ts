import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readdirSync, readSync, statSync, type BigIntStats } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import { agentDirs, listAgents } from '../agents/agent-def.js';
import { modulesDir } from '../lua/module-files.js';
import type { FileLook, RuleFiles } from '../engine/ports.js';

/**
 * A file changed within a clock tick of a look may change again in that tick with its stat
 * unmoved (file systems stamp times from a coarse clock: ~4–10 ms on Linux): a file changed
 * that recently is hashed at every look, never taken from the cache by its stat ("racily
 * clean", as git calls it). Where stamps are whole seconds (ext3, HFS+, FAT: no nanoseconds),
 * the window is two seconds.
 */
const RACY_NS = 20_000_000n;
const RACY_WHOLE_SECONDS_NS = 2_000_000_000n;
const SECOND_NS = 1_000_000_000n;

/** Files larger than this are told apart by their stat alone, never read whole. */
const HASH_CAP_BYTES = 4 * 1024 * 1024;

/**
 * The modules a workflow may require (its lib folder) are rule files too, up to these bounds: a
 * lib folder past them is one entry saying so (what lies past the bounds is not watched).
 */
const LIB_FILES_MAX = 1000;
const LIB_DEPTH_MAX = 32;

/** A file as last hashed: its stat (ctime moves on every change and cannot be set back by a user) and its hash. */
interface Known {
  ino: bigint;
  size: bigint;
  mtimeNs: bigint;
  ctimeNs: bigint;
  mode: bigint;
  hash: string;
}

/** A folder's entry: a link to a folder is not a folder here. */
interface Entry {
  path: string;
  folder: boolean;
}

const same = (st: BigIntStats, k: Omit<Known, 'hash'>) =>
  st.ctimeNs === k.ctimeNs && st.mtimeNs === k.mtimeNs && st.size === k.size && st.ino === k.ino && st.mode === k.mode;
const markOf = (st: BigIntStats) => `${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}:${st.mode}`;

/**
 * The project's rule files on disk, looked at cheaply: a stat per file and per agent folder,
 * and a file is read and hashed only when its stat moved since it was last hashed.
 */
export function nodeRuleFiles(root: string, now: () => number = Date.now): RuleFiles {
  const dirs = agentDirs(root);
  const hashes = new Map<string, Known>();
  const listings = new Map<string, Known & { entries: Entry[] }>();
  const recent = new Map<string, { at: number; look: FileLook }>();
  const names = new Map<string, string>();
  const shown = (path: string) => {
    let name = names.get(path);
    if (name === undefined) {
      const rel = relative(root, path);
      name = rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path;
      names.set(path, name);
    }
    return name;
  };

  /** Changed so recently that a later change in the same clock tick could leave the stat as it is. */
  const racy = (st: BigIntStats, wallNs: bigint) => {
    const window = st.ctimeNs % SECOND_NS === 0n ? RACY_WHOLE_SECONDS_NS : RACY_NS;
    return wallNs - st.ctimeNs < window || wallNs - st.mtimeNs < window;
  };

  /**
   * A folder's entries, listed again only when the folder changed (a file added, removed or
   * renamed in it); a folder that cannot be read is an error code, itself a state to compare.
   */
  function listing(dir: string, wallNs: bigint): Entry[] | { error: string } {
    try {
      const st = statSync(dir, { bigint: true, throwIfNoEntry: false });
      if (!st?.isDirectory()) return [];
      const known = listings.get(dir);
      if (known && same(st, known) && !racy(st, wallNs)) return known.entries;
      // A link to a folder is not walked into (no loop); a link to a file is a file.
      const found = readdirSync(dir, { withFileTypes: true })
        .map((d) => ({ path: join(dir, d.name), folder: d.isDirectory() }))
        .sort((a, b) => (a.path < b.path ? -1 : 1));
      listings.set(dir, {
        ino: st.ino,
        size: st.size,
        mtimeNs: st.mtimeNs,
        ctimeNs: st.ctimeNs,
        mode: st.mode,
        hash: '',
        entries: found,
      });
      return found;
    } catch (e) {
      return { error: (e as NodeJS.ErrnoException).code ?? 'error' };
    }
  }

  function hashOf(path: string, wallNs: bigint): string | null {
    let st: BigIntStats | undefined;
    try {
      st = statSync(path, { bigint: true, throwIfNoEntry: false });
    } catch (e) {
      return `unreadable:${(e as NodeJS.ErrnoException).code ?? 'error'}`;
    }
    if (!st) return null;
    const known = hashes.get(path);
    const recentlyChanged = racy(st, wallNs);
    if (known && same(st, known) && !recentlyChanged) return known.hash;
    const hash = contentHash(path, st);
    if (!recentlyChanged)
      hashes.set(path, { ino: st.ino, size: st.size, mtimeNs: st.mtimeNs, ctimeNs: st.ctimeNs, mode: st.mode, hash });
    return hash;
  }

  return {
    agentNames: () => listAgents(root),
    shown,
    look(workflowPath, reuseMs = 0) {
      const at = performance.now();
      const last = recent.get(workflowPath);
      if (last && reuseMs > 0 && at - last.at <= reuseMs) return last.look;
      const wallNs = BigInt(now()) * 1_000_000n;
      const look = new Map<string, string>();
      const add = (path: string) => {
        const hash = hashOf(path, wallNs);
        if (hash !== null) look.set(shown(path), hash);
      };
      add(workflowPath);
      const lib = modulesDir(root);
      const libs = { files: 0, over: false };
      const addLib = (dir: string, depth: number) => {
        const entries = listing(dir, wallNs);
        if (!Array.isArray(entries)) return void look.set(`${shown(dir)}/`, `unreadable:${entries.error}`);
        for (const e of entries) {
          if (e.folder) {
            if (depth < LIB_DEPTH_MAX) addLib(e.path, depth + 1);
            else libs.over = true;
          } else if (e.path.endsWith('.lua')) {
            if (libs.files++ < LIB_FILES_MAX) add(e.path);
            else libs.over = true;
          }
        }
      };
      addLib(lib, 1);
      if (libs.over)
        look.set(
          `${shown(lib)}/`,
          `past the bounds watched: ${libs.files} files, ${LIB_FILES_MAX} at most, ${LIB_DEPTH_MAX} folders deep`,
        );
      for (const dir of dirs) {
        const entries = listing(dir, wallNs);
        if (!Array.isArray(entries)) look.set(`${shown(dir)}/`, `unreadable:${entries.error}`);
        else for (const e of entries) if (e.path.endsWith('.md')) add(e.path);
      }
      recent.set(workflowPath, { at, look });
      return look;
    },
  };
}

/**
 * A regular file's sha256, read without trusting what is there now (an agent may have put a FIFO
 * or a huge file in its place): opened without blocking, only a regular file, at most the cap —
 * past it, or anything else, it is told apart by its stat.
 */
function contentHash(path: string, st: BigIntStats): string {
  const mark = markOf(st);
  if (!st.isFile()) return `not-a-file:${st.mode}`;
  if (st.size > BigInt(HASH_CAP_BYTES)) return `large:${mark}`;
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    return `unreadable:${(e as NodeJS.ErrnoException).code ?? 'error'}:${mark}`;
  }
  try {
    const now = fstatSync(fd);
    if (!now.isFile()) return `not-a-file:${now.mode}`;
    const hash = createHash('sha256');
    const buf = Buffer.alloc(64 * 1024);
    for (let total = 0; ;) {
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n === 0) return hash.digest('hex');
      total += n;
      if (total > HASH_CAP_BYTES) return `large:${mark}`;
      hash.update(buf.subarray(0, n));
    }
  } finally {
    closeSync(fd);
  }
}
