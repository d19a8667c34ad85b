import { isAbsolute, posix } from 'node:path';
import { globMatches } from './gate-glob.js';

/**
 * File rules (`Write(.env*)`) match a path the way a person means it, whatever form the agent
 * sends: absolute (what Claude Code sends), `./x`, `a/../x`, `~/x`, a link to the file. The
 * path is made relative to the workspace; one outside it is matched as an absolute path.
 */
export interface GatePlace {
  /** The agent's workspace: the directory Shop started its session in. */
  workspace: string;
  /** Where a relative path is taken from: the agent's current directory (the hook input's cwd), else the workspace. */
  cwd: string;
  /** For `~/…`. */
  home?: string;
  /** The path with links resolved (as far as it exists), or null: a link to a file is matched as that file too. */
  realPath?: (abs: string) => string | null;
}

/**
 * The ways the path is known: as given and, when a link leads elsewhere, as the file itself;
 * each as its forms (relative to the workspace when inside it, and absolute).
 */
function pathForms(path: string, place: GatePlace): string[][] {
  const abs = absolute(path, place);
  const real = place.realPath?.(abs) ?? null;
  const ids = real && real !== abs ? [abs, real] : [abs];
  const root = absolute(place.workspace, place);
  const roots = [...new Set([root, place.realPath?.(root) ?? root])];
  return ids.map((p) => {
    const rels = roots
      .map((r) => posix.relative(r, p))
      .filter((rel) => rel && rel !== '..' && !rel.startsWith('../') && !isAbsolute(rel));
    return [...new Set([...rels, p])];
  });
}

function absolute(path: string, place: GatePlace): string {
  const home = place.home && (path === '~' || path.startsWith('~/')) ? place.home + path.slice(1) : path;
  return posix.resolve(place.cwd, home);
}

/**
 * Whether a file rule's glob names one form of a path: the whole form, or — for a glob with no
 * `/`, as in .gitignore — its last part (`.env*` names config/.env too). `~/` starts at home.
 */
function globNamesPath(glob: string, forms: string[], place: GatePlace): boolean {
  const g = place.home && glob.startsWith('~/') ? place.home + glob.slice(1) : glob;
  return forms.some((f) => globMatches(g, f) || (!g.includes('/') && globMatches(g, f.slice(f.lastIndexOf('/') + 1))));
}

/** A hold rule holds the path when it names it in any way it is known. */
export const holdsPath = (glob: string, path: string, place: GatePlace) =>
  pathForms(path, place).some((forms) => globNamesPath(glob, forms, place));

/** An allow rule releases the path only when it names it in every way it is known (a link and its file). */
export const allowsPath = (glob: string, path: string, place: GatePlace) =>
  pathForms(path, place).every((forms) => globNamesPath(glob, forms, place));
