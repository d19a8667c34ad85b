/** Characters of a module name (require("git.helpers")): past this it is refused, never looked for. */
export const MODULE_NAME_MAX = 200;

/** Bytes a module file may hold: a workflow's shared Lua, not data (read whole before it compiles). */
export const MODULE_FILE_BYTES = 1024 * 1024;

/** The folder under workflows/ that require() looks in. */
export const MODULE_FOLDER = 'lib';

/** A module's text, or why it cannot be had (one line: the file looked for and what is wrong). */
export type ModuleRead = { file: string; source: string } | { problem: string };

/** Where require() finds a module: `<lib>/<name with dots as folders>.lua`, read bounded. */
export interface ModuleSource {
  read(name: string): ModuleRead;
}

const NAME = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;

/**
 * Why `name` is not a module name, or null: dot-separated parts of letters, digits, `_` and
 * `-`, so a name can only reach a file under the lib folder (no `..`, no `/`, not absolute).
 */
export function moduleNameProblem(name: string): string | null {
  if (name === '') return 'a module name may not be empty';
  if (name.length > MODULE_NAME_MAX)
    return `a module name is at most ${MODULE_NAME_MAX} characters (this one has ${name.length})`;
  if (NAME.test(name)) return null;
  return 'a module name is parts of letters, digits, _ and - joined by dots (require("git.helpers") loads workflows/lib/git/helpers.lua); no "..", "/" or empty part';
}

/** The module's file under the lib folder: "git/helpers.lua" for "git.helpers". */
export function moduleFile(name: string): string {
  return `${name.split('.').join('/')}.lua`;
}

/** A name as a message quotes it: JSON-escaped (no control character reaches a terminal), capped. */
export function quotedName(name: string): string {
  return JSON.stringify(name.length > 80 ? `${name.slice(0, 79)}…` : name);
}
