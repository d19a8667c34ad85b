/**
 * "Did you mean …?" for a mistyped command, flag or value: the closest candidate within an
 * edit distance of 2 (transpositions count as one edit: "stauts" → "status"), else the only
 * one the input is a prefix of ("li" → "list"). Nothing when no candidate is close.
 */
export function suggest(input: string, candidates: readonly string[]): string | undefined {
  if (!input) return undefined;
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const d = editDistance(input.toLowerCase(), c.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [c, d];
  }
  // A short word is "close" to too much: two edits turn "ls" into almost anything.
  if (best !== undefined && bestDistance <= Math.min(2, Math.floor(input.length / 2))) return best;
  const prefixed = candidates.filter((c) => c.toLowerCase().startsWith(input.toLowerCase()));
  return prefixed.length === 1 ? prefixed[0] : undefined;
}

/** Damerau–Levenshtein distance (optimal string alignment): insertions, deletions, substitutions, adjacent swaps. */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}
