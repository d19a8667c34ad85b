/** The agent CLIs Shop speaks (an agent picks one with `cli:` in its front matter; Claude Code by default). */
export const CLI_NAMES = ['claude', 'codex', 'gemini'] as const;
export type CliName = (typeof CLI_NAMES)[number];
