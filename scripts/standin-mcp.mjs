#!/usr/bin/env node
// What the agent stand-ins do to call an MCP tool as their CLI would: start the stdio server their
// configuration names (command, args, env over the variables the CLI passes it), speak MCP to it
// through the official SDK's client, list its tools, call one, and print one JSON line:
//   { tools: [names], result: { isError, text } }   (exit 0; a refusal is a result with isError)
// or { error } (exit 1) when the server could not be reached or the call failed as a protocol error.
//
//   node standin-mcp.mjs '<JSON: { server: { command, args, env }, inherit: "all" | [names], tool, input }>'
//
// inherit: the variables of this process the CLI hands its servers — all (Claude Code, Gemini
// CLI, ours filtered by its own rules) or a list (Codex: a few of its own plus env_vars).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const { server, inherit, tool, input } = JSON.parse(process.argv[2]);
const base = {};
for (const [k, v] of Object.entries(process.env))
  if (inherit === 'all' || (Array.isArray(inherit) && inherit.includes(k))) base[k] = v;
const transport = new StdioClientTransport({
  command: server.command,
  args: server.args ?? [],
  env: { ...base, ...(server.env ?? {}) },
  stderr: 'inherit',
});
const client = new Client({ name: 'shop-standin', version: '1' });
try {
  await client.connect(transport);
  const { tools } = await client.listTools();
  const r = await client.callTool({ name: tool, arguments: input });
  const text = (r.content ?? []).map((c) => (c.type === 'text' ? c.text : '')).join('\n');
  console.log(JSON.stringify({ tools: tools.map((t) => t.name), result: { isError: Boolean(r.isError), text } }));
  await client.close();
} catch (e) {
  console.log(JSON.stringify({ error: String(e?.message ?? e) }));
  await client.close().catch(() => {});
  process.exit(1);
}
