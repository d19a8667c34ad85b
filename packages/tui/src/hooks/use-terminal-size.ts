import { useStdout } from 'ink';
import { useEffect, useState } from 'react';

/** The screen's width and height, following resizes; `rows` when the stream cannot tell. */
export function useTerminalSize(rows?: number): { columns: number; rows: number } {
  const { stdout } = useStdout();
  const read = () => ({ columns: stdout.columns || 80, rows: rows ?? (stdout.rows || 24) });
  const [size, setSize] = useState(read);
  useEffect(() => {
    const onResize = () => setSize(read());
    stdout.on('resize', onResize);
    return () => {
      stdout.off('resize', onResize);
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [stdout, rows]);
  return size;
}
