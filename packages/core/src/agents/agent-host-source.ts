/**
 * The agent host's program (CommonJS, run as `node -e`): a small process beside a driver that
 * starts its agents and tells it their pids and ends, over the IPC channel. See agent-host.ts
 * for why. Messages in: {type:'spawn', id, file, args, cwd, env, stdout, stderr, marker, sweep}.
 * Out: {type:'started', id, pid}, {type:'ended', id, code, signal}, {type:'failed', id, phase: 'logs'|'spawn', code, message}.
 * When the channel closes — the driver is gone, however it died — every agent still running
 * goes with it: TERM to its group, KILL after a grace. A request read after the driver died
 * (this host was behind: the channel's end not read yet) starts nothing — another driver may
 * have taken the run over, its check for a session's leftovers done — and a write to the gone
 * driver that fails (EPIPE) is no reason for the host to die and leave its agents unwatched.
 * `sweep` (an agent not in a PID namespace of its own, containment.ts): once its leader ends, its
 * process group is killed, then every process whose environment has SHOP_STEP=<marker> — before
 * the end is told, so a step's leftovers are gone when the driver hears it ended.
 */
export const AGENT_HOST_SOURCE = String.raw`'use strict';
const { spawn } = require('child_process');
const { openSync, closeSync, readdirSync, readFileSync } = require('fs');
const GRACE_MS = 5000;
const running = new Map();
// Without a callback a failed write is an uncaught 'error': the host would die before its 'disconnect'.
const send = (m) => { if (process.connected) process.send(m, () => {}); };
// The driver is this host's parent: once it has died the host has another (its ppid changed at
// once), while the channel may still hold its last requests.
const driver = Number(process.argv[process.argv.length - 1]);
const driverGone = () => process.ppid !== driver;
const failed = (id, e, phase) => send({ type: 'failed', id, phase, code: (e && e.code) || null, message: String((e && e.message) || e).slice(0, 2000) });

process.on('message', (m) => {
  if (!m || m.type !== 'spawn' || driverGone()) return;
  const fds = [];
  let child;
  try {
    fds.push(openSync(m.stdout, 'w', 0o600));
    fds.push(openSync(m.stderr, 'w', 0o600));
  } catch (e) {
    for (const fd of fds) closeSync(fd);
    return failed(m.id, e, 'logs');
  }
  try {
    child = spawn(m.file, m.args, { cwd: m.cwd, env: m.env, detached: true, stdio: ['ignore', fds[0], fds[1]] });
  } catch (e) {
    return failed(m.id, e, 'spawn');
  } finally {
    for (const fd of fds) closeSync(fd);
  }
  const pid = child.pid;
  child.on('error', (e) => { if (!pid) failed(m.id, e, 'spawn'); });
  if (!pid) return;
  // Died while this one was being started: it goes at once, before it has done anything (a TERM
  // this early could be lost, its namespace's init not yet listening).
  if (driverGone()) return m.sweep ? leftovers(pid, m.marker) : killed(-pid);
  running.set(pid, m.sweep ? m.marker : null);
  send({ type: 'started', id: m.id, pid });
  child.on('close', (code, signal) => {
    const marker = running.get(pid);
    running.delete(pid);
    if (marker) leftovers(pid, marker);
    send({ type: 'ended', id: m.id, code, signal });
  });
});

const killed = (p) => { try { process.kill(p, 'SIGKILL'); } catch (e) { /* gone */ } };
const live = (p) => { try { return readFileSync('/proc/' + p + '/stat', 'utf8').split(') ').pop()[0] !== 'Z'; } catch (e) { return false; } };
function marked(marker) {
  const needle = Buffer.from('\0SHOP_STEP=' + marker + '\0');
  let names = [];
  try { names = readdirSync('/proc'); } catch (e) { return []; }
  return names.filter((n) => /^\d+$/.test(n) && Number(n) !== process.pid).filter((n) => {
    try { return Buffer.concat([Buffer.from('\0'), readFileSync('/proc/' + n + '/environ'), Buffer.from('\0')]).includes(needle) && live(n); } catch (e) { return false; }
  }).map(Number);
}
function leftovers(pgid, marker) {
  if (pgid) killed(-pgid);
  for (let round = 0; round < 20; round++) {
    const left = marked(marker);
    if (!left.length) return;
    left.forEach(killed);
  }
}

const alive = (pgid) => { try { process.kill(-pgid, 0); return true; } catch (e) { return e.code === 'EPERM'; } };
const signal = (pgid, sig) => { try { process.kill(-pgid, sig); } catch (e) { /* gone */ } };

process.on('disconnect', () => {
  const groups = [...running.keys()];
  const markers = [...running.values()].filter(Boolean);
  for (const g of groups) signal(g, 'SIGTERM');
  const until = Date.now() + GRACE_MS;
  const check = () => {
    const left = groups.filter(alive);
    if (left.length && Date.now() < until) return void setTimeout(check, 100);
    for (const g of left) signal(g, 'SIGKILL');
    for (const m of markers) leftovers(null, m);
    process.exit(0);
  };
  check();
});
`;

/** The name the host carries in its argv (followed by its driver's pid), for ps and tests. */
export const AGENT_HOST_NAME = 'shop-agent-host';
