// Small statistics and timing helpers shared by both sides of the benchmark.
import { spawn } from 'node:child_process';

/**
 * A figure's samples as one value — the median, or the p-th percentile — with min and max
 * (the table shows "value (min–max)").
 */
export function summary(samples, p = 50) {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    stat: p === 50 ? 'median' : `p${p}`,
    value: percentile(sorted, p),
    min: sorted[0],
    max: sorted.at(-1),
    samples,
  };
}

/** The p-th percentile of sorted samples, nearest rank (p50 of an even count is the mean of the middle two). */
export function percentile(sorted, p) {
  if (p === 50 && sorted.length % 2 === 0) return (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** Milliseconds an async function takes, with its value. */
export async function timed(fn) {
  const t = performance.now();
  const value = await fn();
  return { ms: performance.now() - t, value };
}

/**
 * Runs `rounds` rounds of the given samplers in turn — Shop, LangGraph, Shop, LangGraph … —
 * so a noisy moment of the machine falls on both sides alike. Returns each sampler's samples.
 */
export async function alternate(rounds, samplers) {
  const out = Object.fromEntries(Object.keys(samplers).map((k) => [k, []]));
  for (let r = 0; r < rounds; r++) {
    for (const [name, sample] of Object.entries(samplers)) out[name].push(await sample(r));
  }
  return out;
}

/**
 * Wall-clock milliseconds of a whole new process, from spawn to exit, as a person at a
 * terminal waits for it. Its stdout goes to /dev/null; a wrong exit code throws with its stderr.
 */
export function timeProcess(argv, { cwd, env = process.env, expect = 0 } = {}) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(argv[0], argv.slice(1), { cwd, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = performance.now() - started;
      if (code === expect) resolve(ms);
      else
        reject(
          new Error(`${argv.slice(1).join(' ')} exited ${code} (expected ${expect}): ${stderr.trim().slice(-500)}`),
        );
    });
  });
}
