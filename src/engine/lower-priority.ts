/**
 * Background work that steps back for the thread serving requests: on Linux each thread and
 * process has a nice value of its own, and work at nice 10 gets a core only when the serving
 * thread leaves one (the serving thread gets about nine tenths of a shared core). Elsewhere, or
 * where it is not allowed, the work keeps its priority.
 */
import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/** The nice value of background threads and processes: below the thread that serves requests. */
export const BACKGROUND_NICENESS = 10;

/** Lowers the priority of the calling thread (a worker thread's first call). */
export function lowerThisThreadsPriority(): void {
  try {
    const thread = /\/task\/(\d+)$/.exec(readlinkSync('/proc/thread-self'))?.[1];
    if (thread !== undefined) lowerPriorityOf(Number(thread));
  } catch {
    // Not Linux, or no /proc: nothing to do.
  }
}

/** Lowers the priority of a process (or a Linux thread) by its id; one that has ended is left alone. */
export function lowerPriorityOf(id: number): void {
  try {
    setPriority(id, Math.max(BACKGROUND_NICENESS, getPriority(id)));
  } catch {
    // Gone already, or not allowed: it runs at the priority it has.
  }
}
