/**
 * The name ($0, in its argv) of an agent step's init (containment.ts), by which a process inside
 * a step finds it among its ancestors (inside-agent-step.ts) — apart, so that a command asking
 * who called it does not load the agent host's code.
 */
export const STEP_INIT_NAME = 'shop-step-init';
