/** The two ways a command fails on purpose; main.ts turns them into exit codes without stack traces. */

/** The command line itself is wrong: exit code 2, with the help command that shows the fix. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
  /** The command whose `--help` explains the fix; undefined for the overview. */
  readonly command: string | undefined;

  constructor(message: string, command?: string) {
    super(message);
    this.command = command;
  }
}

/** The command ran and could not do its job (unreadable file, failed source): exit code 1. */
export class CommandFailure extends Error {
  override readonly name = 'CommandFailure';
  readonly hint: string | undefined;

  constructor(message: string, hint?: string) {
    super(message);
    this.hint = hint;
  }
}
