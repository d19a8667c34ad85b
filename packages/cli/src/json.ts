/** Prints one JSON document (the whole of stdout with --json). */
export function printJson(out: (line: string) => void, value: unknown) {
  out(JSON.stringify(value, null, 2));
}
