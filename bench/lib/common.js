// What every benchmark part uses: settings from the environment, the repository's paths and the
// built engine, statistics, and the plain-text tables of the report.
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { URL, fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/** A module of the built engine (tsc's dist/; `npm run bench` builds it first), e.g. `compose.js`. */
export const dist = (path) => import(new URL(`../../dist/${path}`, import.meta.url).href);

export function positiveInt(value, fallback) {
  const parsed = Number.parseInt(value ?? '', 10);
  return Number.isFinite(parsed) && parsed > 0 ? parsed : fallback;
}

export const isOn = (value) => ['1', 'true', 'yes'].includes(value ?? '');

/** Sources per createDataSources call, texts and URLs. */
export const batchSize = positiveInt(process.env.GURU_BENCH_BATCH, 100);

/**
 * @typedef {{ p50: number, p95: number, p99: number, mean: number, samples: number }} LatencyStats
 * @returns {LatencyStats}
 */
export function latencyStats(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = (p) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
  const mean = sorted.reduce((sum, value) => sum + value, 0) / sorted.length;
  return { p50: rank(50), p95: rank(95), p99: rank(99), mean, samples: sorted.length };
}

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

export function mean(values) {
  return values.reduce((sum, value) => sum + value, 0) / values.length;
}

export const mb = (bytes) => bytes / (1024 * 1024);

/** Milliseconds `call` takes. */
export async function timed(call) {
  const start = performance.now();
  await call();
  return performance.now() - start;
}

export function table(headers, rows) {
  const cells = [headers, ...rows].map((row) => row.map(String));
  const widths = headers.map((_, column) => Math.max(...cells.map((row) => row[column].length)));
  const line = (row) => row.map((cell, column) => cell.padStart(widths[column])).join('  ');
  return [line(cells[0]), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join('\n');
}

export const fixed = (value, digits) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');
