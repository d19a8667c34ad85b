import { spawnSync } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { STEP_INIT_NAME } from './step-init-name.js';

/**
 * How an agent step's processes are held together, so that every one of them ends with the step.
 *
 * - `pid-namespace` (Linux, where the machine allows it): the agent runs in a PID namespace of its
 *   own under a tiny init of ours; when the init exits with the agent, the kernel kills every
 *   process left in the namespace — one that called setsid, double-forked or cleared its
 *   environment too. The namespace has its own /proc: inside it, pids are the namespace's.
 * - `process-group` (elsewhere): when the agent ends, its process group is killed, then every
 *   process whose environment carries the step's SHOP_STEP marker. A process that both left the
 *   group and cleared its environment escapes.
 */
export type Containment = 'pid-namespace' | 'process-group';

/**
 * The namespace's init (POSIX sh, pid 1 there). A pid 1 ignores every signal it has no handler
 * for, so TERM, INT and HUP are trapped and handed to the agent: a stop's grace and the agent's
 * own clean-up work as outside a namespace. The agent is a background command so that the init
 * can take signals while it waits; such a command would start with INT and QUIT ignored (a shell
 * script could not even trap them) and with /dev/null for stdin, so `env --default-signal` (GNU
 * coreutils 8.31 or later: where it is missing the probe fails, and the fallback is used) gives
 * them back and stdin is kept explicitly. It exits with the agent's status (128+n when a signal
 * ended it). A trap cuts `wait` short (128+n too): while the agent lives the init waits again, and
 * once it has ended a second `wait` gives its own status — the agent may have ended between the
 * two (its INT trap exiting 7), and the interrupted wait's 130 is not its status.
 */
export const STEP_INIT = `trap 'kill -TERM $c 2>/dev/null' TERM
trap 'kill -INT $c 2>/dev/null' INT
trap 'kill -HUP $c 2>/dev/null' HUP
env --default-signal=INT,QUIT "$@" <&0 &
c=$!
while :; do
  wait $c
  s=$?
  if [ $s -gt 128 ]; then
    if kill -0 $c 2>/dev/null; then continue; fi
    wait $c
    s=$?
  fi
  exit $s
done`;

/**
 * A PID namespace with its own /proc (so a tool that looks itself up in /proc/<its pid> — Claude
 * Code's bubblewrap sandbox, ps — finds itself), in a mount namespace of its own that still sees
 * the machine's mounts come and go (slave) without showing its /proc to them.
 */
const NAMESPACE = ['--pid', '--fork', '--kill-child', '--mount-proc', '--propagation', 'slave'];

interface Probed {
  containment: Containment;
  /** `unshare` and its flags, up to the init's command line (pid-namespace only). */
  prefix: string[];
}

let probed: Probed | null = null;

/**
 * Which containment this machine gives agents: probed once per process by starting the init in a
 * namespace (`unshare`, util-linux), as root or — for anyone else — in a user namespace mapping
 * the user to itself. SHOP_AGENT_CONTAINMENT=process-group skips the namespace.
 */
function machineContainment(env: NodeJS.ProcessEnv = process.env): Probed {
  if (process.platform !== 'linux' || env.SHOP_AGENT_CONTAINMENT === 'process-group') return NONE;
  probed ??= probe(env.PATH);
  return probed;
}

const NONE: Probed = { containment: 'process-group', prefix: [] };

function probe(path: string | undefined): Probed {
  const unshare = onPath('unshare', path);
  if (!unshare) return NONE;
  const root = process.getuid?.() === 0;
  for (const flags of root ? [NAMESPACE] : [['--map-current-user', ...NAMESPACE], NAMESPACE]) {
    const prefix = [unshare, ...flags, '--', '/bin/sh', '-c', STEP_INIT, STEP_INIT_NAME];
    const r = spawnSync(prefix[0]!, [...prefix.slice(1), '/bin/sh', '-c', 'exit 3'], {
      stdio: 'ignore',
      timeout: 5000,
    });
    if (r.status === 3) return { containment: 'pid-namespace', prefix };
  }
  return NONE;
}

/**
 * The command line that starts `file args` contained, and how. In a namespace the init starts the
 * agent, so a command that is missing or not executable is found here first and thrown as spawn
 * would (ENOENT, EACCES): the step fails with the same one line either way.
 */
export function containedCommand(
  file: string,
  args: string[],
  cwd: string,
  path: string | undefined,
): { file: string; args: string[]; containment: Containment } {
  const { containment, prefix } = machineContainment();
  if (containment !== 'pid-namespace') return { file, args, containment };
  const found = executable(file, cwd, path);
  return { file: prefix[0]!, args: [...prefix.slice(1), found, ...args], containment };
}

/** `file` as execvp would find it (on PATH unless it names a path), or a spawn-like ENOENT/EACCES error. */
function executable(file: string, cwd: string, path: string | undefined): string {
  const candidates = file.includes('/')
    ? [resolve(cwd, file)]
    : (path ?? '').split(delimiter).map((d) => resolve(cwd, d || '.', file));
  let denied = false;
  for (const c of candidates) {
    try {
      if (!statSync(c).isFile()) continue;
      accessSync(c, constants.X_OK);
      return c;
    } catch (e) {
      denied ||= (e as NodeJS.ErrnoException).code === 'EACCES';
    }
  }
  const code = denied ? 'EACCES' : 'ENOENT';
  throw Object.assign(new Error(`spawn ${file} ${code}`), { code, path: file, syscall: `spawn ${file}` });
}

function onPath(name: string, path: string | undefined): string | null {
  for (const dir of (path ?? '').split(delimiter)) {
    if (!dir) continue;
    try {
      accessSync(join(dir, name), constants.X_OK);
      return join(dir, name);
    } catch {
      /* not here */
    }
  }
  return null;
}
