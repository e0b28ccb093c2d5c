// What a benchmark part is. bench/run.js runs the parts GURU_BENCH_PARTS names, in the order of
// its PARTS list, prints each one's report and writes all results to bench/results/latest.json.
//
// To add one: write bench/parts/NAME.js with a default export of this shape (read its settings
// from GURU_BENCH_* variables, documented at the top of bench/run.js), and add it to PARTS there.
// Work that should be measured in a process of its own (peak RSS, CPU time) goes through
// runIsolated (lib/isolated.js); the site of the PostgreSQL manual and the engine helpers are in
// lib/manual-site.js and lib/engine.js.

/**
 * @typedef {object} BenchPart
 * @property {string} name         what GURU_BENCH_PARTS calls it, and its key in latest.json
 * @property {() => Promise<object>} run  measures; resolves to `{ skipped: reason }` when it cannot run here
 * @property {(result: any) => void} print  writes the report's tables to stdout (not called for skipped parts)
 */
export {};
