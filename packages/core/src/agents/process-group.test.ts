import { spawn, type ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { groupAlive, killOrphanGroup, processStart } from './process-group.js';

/** A process leading a group of its own, as a detached agent does. */
function groupLeader(): ChildProcess {
  const child = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' });
  child.unref();
  return child;
}

describe('killOrphanGroup', () => {
  const started: ChildProcess[] = [];
  afterEach(() => {
    for (const c of started.splice(0)) {
      try {
        process.kill(-c.pid!, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
  });

  it('ends the group of the agent recorded (its pid and start time)', async () => {
    const agent = groupLeader();
    started.push(agent);
    const start = processStart(agent.pid!);
    expect(start).not.toBeNull();
    expect(await killOrphanGroup(agent.pid!, start, null)).toBe(true);
    expect(groupAlive(agent.pid!)).toBe(false);
  });

  it('leaves alone a process that has the pid now, when the agent was recorded without a start time', async () => {
    // The agent had ended before its start could be read (none recorded); its pid went to this process.
    const other = groupLeader();
    started.push(other);
    expect(await killOrphanGroup(other.pid!, null, null)).toBe(false);
    expect(groupAlive(other.pid!)).toBe(true);
  });

  it('leaves alone a process that has the pid now, started after the agent recorded', async () => {
    const other = groupLeader();
    started.push(other);
    expect(await killOrphanGroup(other.pid!, '1', null)).toBe(false);
    expect(groupAlive(other.pid!)).toBe(true);
  });
});
