import { useCallback, useState } from 'react';

export type StatusTone = 'info' | 'success' | 'error';
export interface StatusMessage {
  text: string;
  tone: StatusTone;
}

/** The status line: what the last action did, or why it failed. */
export function useStatus() {
  const [status, setStatus] = useState<StatusMessage | null>(null);
  const say = useCallback((text: string, tone: StatusTone = 'info') => setStatus({ text, tone }), []);
  const fail = useCallback(
    (e: unknown) => setStatus({ text: e instanceof Error ? e.message : String(e), tone: 'error' }),
    [],
  );
  return { status, say, fail, clear: useCallback(() => setStatus(null), []) };
}
export type Status = ReturnType<typeof useStatus>;
