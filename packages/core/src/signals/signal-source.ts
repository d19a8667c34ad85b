/**
 * The port through which the engine learns that something it waits on may have changed:
 * a signal file written, or an answer recorded. It only wakes the engine; the engine
 * then reads the file or the store itself, so a missed wake-up costs at most one rescan.
 */
export interface SignalSource {
  /** Resolves on the next change (or rescan tick); rejects never. */
  next(): Promise<void>;
  close(): Promise<void>;
}

export interface SignalOptions {
  /** How often it wakes with no change (ms; 0: never). */
  rescanMs?: number;
  /** Only answers' wake-up files wake it (a worker: agents' own signal files are read by their drivers, and each costs a look). */
  answersOnly?: boolean;
  /** Sees each answer's (or event's) wake-up file (wake.ts) first: true when the run it names was taken care of, and no wake is due. */
  answered?(runId: number, path: string): boolean;
}
