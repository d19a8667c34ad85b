/**
 * Shop's own MCP server (`shop mcp`), as each agent CLI is told of it: one stdio server named
 * `shop`, offering `report` and `ask` and nothing else. It serves the step whose environment it
 * is started with, so that environment must reach it whatever the CLI passes its servers.
 */

/** How to start the server: the running shop's node and its bin/shop, never a `shop` found on PATH. */
export interface ShopMcpCommand {
  command: string;
  args: string[];
}

/** The server's name in every CLI's configuration (Claude Code's tools are then mcp__shop__report …). */
export const MCP_SERVER_NAME = 'shop';

/** The tools it offers, each CLI allowed exactly these. */
export const MCP_TOOLS = ['report', 'ask'] as const;

/**
 * The agent's variables the server reads (its attempt, and where the run's store is). Written into
 * a CLI's per-session configuration, or named for the CLI to pass (Codex passes its servers only a
 * few of its own variables otherwise); never on a command line, where any process could read them.
 */
export const MCP_ENV = ['SHOP_SIGNAL_FILE', 'SHOP_RUN_ID', 'SHOP_CALL', 'SHOP_AGENT', 'SHOP_HOME'] as const;

/** One step's server: how it starts, the file a CLI reads its configuration from, and the variables it gets. */
export interface StepMcp extends ShopMcpCommand {
  /** A per-invocation file (private to the run's logs) for a CLI configured by file; removed when it ends. */
  file: string;
  env: Record<string, string>;
}

/** The step's variables the server needs, out of the agent's environment. */
export function mcpEnv(env: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of MCP_ENV) if (env[k] !== undefined) out[k] = env[k];
  return out;
}

/** The `mcpServers` entry Claude Code and Gemini CLI both read (a stdio server with its environment). */
export function mcpServerEntry(mcp: StepMcp): { command: string; args: string[]; env: Record<string, string> } {
  return { command: mcp.command, args: mcp.args, env: mcp.env };
}
