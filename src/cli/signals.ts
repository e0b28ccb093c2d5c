/** Waiting for the signals that ask a long-running command to stop. */

export type StopSignal = 'SIGINT' | 'SIGTERM';

const STOP_SIGNALS: readonly StopSignal[] = ['SIGINT', 'SIGTERM'];

/**
 * Resolves with the first SIGINT or SIGTERM. A second one while shutting down
 * ends the process at once, for a shutdown that hangs.
 */
export function waitForStopSignal(): Promise<StopSignal> {
  return new Promise((resolve) => {
    const onSignal = (signal: StopSignal) => {
      for (const name of STOP_SIGNALS) process.off(name, onSignal);
      for (const name of STOP_SIGNALS) process.once(name, () => process.exit(1));
      resolve(signal);
    };
    for (const name of STOP_SIGNALS) process.on(name, onSignal);
  });
}
