/**
 * What an agent may be called: the stem of agents/<name>.md, also used in signal file
 * names and log paths. "../../x/y" loaded a file outside agents/, and "a/b" made a signal
 * path in a folder that does not exist (an internal error, the run interrupted for good).
 */
const AGENT_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** Why `name` is not an agent name, or null when it is one. */
export function agentNameProblem(name: string): string | null {
  if (AGENT_NAME.test(name)) return null;
  const shown = JSON.stringify(name.length > 80 ? `${name.slice(0, 79)}…` : name);
  return `agent name ${shown} is not allowed: use 1 to 64 letters, digits, _ or - (the file is agents/<name>.md)`;
}
