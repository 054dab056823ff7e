/** Percentiles, sampling loops and stderr progress for the benchmark harness. */

export interface Summary {
  n: number;
  p50: number;
  p90: number;
  p99: number;
  mean: number;
  min: number;
  max: number;
}

/** Nearest-rank percentile of an ascending array (p in 0–1). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(sorted.length * p)));
  return sorted[rank - 1]!;
}

export function summarize(samples: readonly number[]): Summary {
  const sorted = [...samples].sort((a, b) => a - b);
  const sum = sorted.reduce((total, value) => total + value, 0);
  return {
    n: sorted.length,
    p50: percentile(sorted, 0.5),
    p90: percentile(sorted, 0.9),
    p99: percentile(sorted, 0.99),
    mean: sorted.length ? sum / sorted.length : Number.NaN,
    min: sorted[0] ?? Number.NaN,
    max: sorted.at(-1) ?? Number.NaN,
  };
}

/** Runs `fn` warmup + n times in sequence and returns the n timed samples (ms). */
export async function sample(n: number, warmup: number, fn: (i: number) => Promise<unknown>): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < warmup + n; i++) {
    const started = performance.now();
    await fn(i);
    const ms = performance.now() - started;
    if (i >= warmup) samples.push(ms);
  }
  return samples;
}

const benchStarted = performance.now();

/** One progress line on stderr, with the time since the bench started. */
export function progress(message: string): void {
  const elapsed = ((performance.now() - benchStarted) / 1000).toFixed(1).padStart(6);
  process.stderr.write(`\x1b[2m[bench ${elapsed}s]\x1b[0m ${message}\n`);
}

export function round(value: number, digits = 2): number {
  if (!Number.isFinite(value)) return value;
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
