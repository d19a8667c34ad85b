import { useStdout } from 'ink';
import { useEffect, useState } from 'react';

/** The screen's width and height, following resizes; `rows` when the stream cannot tell. */
export function useTerminalSize(rows?: number): { columns: number; rows: number } {
  const { stdout } = useStdout();
  const [size, setSize] = useState(() => sizeOf(stdout, rows));
  useEffect(() => {
    const onResize = () => setSize(sizeOf(stdout, rows));
    stdout.on('resize', onResize);
    return () => {
      stdout.off('resize', onResize);
    };
  }, [stdout, rows]);
  return size;
}

const sizeOf = (stdout: NodeJS.WriteStream, rows: number | undefined) => ({
  columns: stdout.columns || 80,
  rows: rows ?? (stdout.rows || 24),
});
