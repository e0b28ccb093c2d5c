/**
 * What a command looks like to the parser and the help screens. Kept free of
 * heavy imports: main.ts reads these descriptions on every start, and loads the
 * one command module that runs only after the arguments are known to be good.
 */
import type { Config } from '../config.js';
import type { OpenedBackend } from '../compose.js';
import type { Logger } from '../log.js';

export interface OptionSpec {
  readonly type: 'string' | 'boolean';
  readonly multiple?: boolean;
  readonly short?: string;
  /** Placeholder of a string option's value in help texts, e.g. `DIR`. */
  readonly value?: string;
  readonly description: string;
}

export type OptionSpecs = Readonly<Record<string, OptionSpec>>;

export interface PositionalSpec {
  readonly name: string;
  readonly required: boolean;
  /** Takes every remaining argument; only the last positional may. */
  readonly variadic?: boolean;
  /**
   * The guru the command works on (only the first positional). It may be left
   * out when a guru is implied: the default guru, else the only one (guru-argument.ts).
   */
  readonly guru?: true;
}

/** The parsed values of a command's options, by option name. */
export type OptionValues = Readonly<Record<string, string | boolean | (string | boolean)[] | undefined>>;

/** An output stream as commands use it: text in, and whether a person watches it. */
export interface OutputStream {
  /** Text, or bytes from commands that write binary output (speak). */
  write(chunk: string | Uint8Array): unknown;
  readonly isTTY?: boolean;
  readonly columns?: number;
}

/** Where a command writes; the process streams, named so commands never reach for globals. */
export interface Terminal {
  readonly stdin: NodeJS.ReadableStream & { readonly isTTY?: boolean };
  readonly stdout: OutputStream;
  readonly stderr: OutputStream;
}

/** What a command opens the backend for. */
export interface BackendUse {
  /**
   * Work through the queue of sources to process (local engine). Only commands
   * that wait for processing say so; the others neither start nor take over work.
   */
  readonly processing: boolean;
}

export interface CommandContext {
  readonly command: CommandSpec;
  /** Positional arguments, checked against the command's positionals (a guru slug may be missing: see guru-argument.ts). */
  readonly args: readonly string[];
  readonly values: OptionValues;
  readonly config: Config;
  readonly logger: Logger;
  readonly terminal: Terminal;
  openBackend(use?: BackendUse): Promise<OpenedBackend>;
}

export interface CommandModule {
  /** Resolves to the process exit code. */
  run(context: CommandContext): Promise<number>;
}

export interface CommandSpec {
  /** The words that select it: `ask`, `guru create`. */
  readonly name: string;
  readonly summary: string;
  /** Extra paragraphs for `--help`. */
  readonly details?: readonly string[];
  readonly positionals: readonly PositionalSpec[];
  readonly options: OptionSpecs;
  /**
   * The common options (registry.ts COMMON_OPTIONS) it takes, by name, for a command that uses
   * only some of them (`help` always); every one when left out. The others are refused.
   */
  readonly commonOptions?: readonly string[];
  /**
   * `people` commands keep the engine's info logs off the terminal unless a log
   * level is asked for; `machines` commands (stdio, serve) log at the configured level.
   */
  readonly audience: 'people' | 'machines';
  readonly examples?: readonly string[];
  readonly load: () => Promise<CommandModule>;
}
