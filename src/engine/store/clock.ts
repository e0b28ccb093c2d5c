/**
 * The time leases and queue times are written in (epoch ms). On SQLite every process runs on the
 * one machine that holds the file, so its own clock is the clock. On PostgreSQL the processes may
 * run on several machines whose clocks disagree: a process whose clock runs ahead would see the
 * leases of the others as expired and take their jobs. There the database's clock is the one clock
 * every process reads, as this process's clock plus the offset measured against the database's
 * (`clock_timestamp()`), measured again every few seconds so that a clock that is set (NTP, or by
 * hand) is followed.
 */
import type { Sql } from './sql.js';

export interface StoreClock {
  /** Now (epoch ms) on the store's clock, measuring the offset again when it is due. */
  now(): Promise<number>;
  /**
   * Now with the offset measured last, without a statement: for use inside a transaction, where
   * measuring would need another connection of the pool (PostgreSQL) while this one is held.
   */
  current(): number;
}

/** How long a measured offset is trusted; a clock set meanwhile is followed at most this late. */
const MEASURED_FOR_MS = 10_000;

/** `local` is this process's clock (Date.now unless a test sets its clock off). */
export function storeClock(sql: Sql, local: () => number = Date.now): StoreClock {
  if (sql.dialect === 'sqlite') return { now: () => Promise.resolve(local()), current: local };
  let offset = 0;
  let measuredAt = -Infinity;
  let measuring: Promise<void> | undefined;
  const measure = async (): Promise<void> => {
    const before = local();
    const row = await sql.get<{ now: number }>('SELECT CAST(extract(epoch FROM clock_timestamp()) * 1000 AS float8) AS now');
    const after = local();
    // The database read its clock about halfway through the round trip.
    offset = Math.round(Number(row!.now) - (before + after) / 2);
    measuredAt = performance.now();
  };
  return {
    now: async () => {
      if (performance.now() - measuredAt > MEASURED_FOR_MS) {
        measuring ??= measure().finally(() => (measuring = undefined));
        await measuring;
      }
      return local() + offset;
    },
    current: () => local() + offset,
  };
}
