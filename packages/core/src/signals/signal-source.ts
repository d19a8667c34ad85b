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
