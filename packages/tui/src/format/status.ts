import type { ExecutionStatus } from '@shop/core';

/** What a status means to a person: its colour is picked by the theme from this tone. */
export type Tone = 'active' | 'attention' | 'success' | 'error' | 'warning' | 'muted';

export interface StatusLook {
  icon: string;
  word: string;
  tone: Tone;
}

/** A run as displayStatus() names it: queued, running, interrupted, waiting, waiting_human, completed, stuck, failed. */
const RUN: Record<string, StatusLook> = {
  // Recorded, not taken by a worker yet: nothing for a person to do.
  queued: { icon: '…', word: 'queued', tone: 'muted' },
  running: { icon: '●', word: 'running', tone: 'active' },
  // On time, an event or another run: nothing for a person to do, so not the attention tone.
  waiting: { icon: '◷', word: 'waiting on', tone: 'muted' },
  waiting_human: { icon: '⏸', word: 'waiting', tone: 'attention' },
  completed: { icon: '✓', word: 'completed', tone: 'success' },
  failed: { icon: '✗', word: 'failed', tone: 'error' },
  stuck: { icon: '■', word: 'stuck', tone: 'warning' },
  interrupted: { icon: '⚠', word: 'interrupted', tone: 'warning' },
};

export const runLook = (status: string): StatusLook => RUN[status] ?? { icon: '?', word: status, tone: 'muted' };

export const execLook = (status: ExecutionStatus): StatusLook => runLook(status);
