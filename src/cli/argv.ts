/**
 * Turns `process.argv` into what to do: run one command, show help, or print
 * the version. Command words may come after common options
 * (`guru-mcp --data-dir x guru list`), and options may follow positionals.
 */
import { parseArgs } from 'node:util';
import type { ParseArgsConfig } from 'node:util';
import { UsageError } from './failures.js';
import { COMMANDS, COMMON_OPTIONS, DEFAULT_COMMAND, VERSION_OPTION, commonOptionsOf, findCommand, isGroup } from './registry.js';
import type { CommandSpec, OptionSpecs, OptionValues, PositionalSpec } from './spec.js';

export type HelpTopic =
  | { readonly kind: 'overview' }
  | { readonly kind: 'group'; readonly group: string }
  | { readonly kind: 'command'; readonly command: CommandSpec };

export type CommandLine =
  | { readonly kind: 'help'; readonly topic: HelpTopic }
  | { readonly kind: 'version' }
  | { readonly kind: 'run'; readonly command: CommandSpec; readonly args: readonly string[]; readonly values: OptionValues };

/** Names of every option that takes a value, so the value is never mistaken for a command word. */
const VALUE_OPTIONS = new Set(
  [COMMON_OPTIONS, ...COMMANDS.map((command) => command.options)].flatMap((options) =>
    Object.entries(options)
      .filter(([, option]) => option.type === 'string')
      .map(([name]) => `--${name}`),
  ),
);

interface Located {
  /** The first argument that is neither an option nor an option's value. */
  readonly word: string | undefined;
  /** Every other argument, in order. */
  readonly rest: string[];
}

function locateWord(argv: readonly string[]): Located {
  const rest: string[] = [];
  for (let index = 0; index < argv.length; index++) {
    const token = argv[index]!;
    if (token === '--') break;
    if (token.startsWith('-') && token !== '-') {
      rest.push(token);
      if (VALUE_OPTIONS.has(token) && index + 1 < argv.length) rest.push(argv[++index]!);
      continue;
    }
    return { word: token, rest: [...rest, ...argv.slice(index + 1)] };
  }
  return { word: undefined, rest: [...argv] };
}

function toParseArgsOptions(options: OptionSpecs): NonNullable<ParseArgsConfig['options']> {
  return Object.fromEntries(
    Object.entries(options).map(([name, option]) => [
      name,
      { type: option.type, ...(option.multiple ? { multiple: true } : {}), ...(option.short ? { short: option.short } : {}) },
    ]),
  );
}

function usageErrorFrom(error: unknown, command: string | undefined): UsageError {
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : String(error);
  const quoted = /'([^']+)'/.exec(message)?.[1];
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && quoted) {
    // A common option the command does not take (CommandSpec.commonOptions).
    const common = quoted.startsWith('--') && Object.hasOwn(COMMON_OPTIONS, quoted.slice(2).split('=')[0]!);
    return new UsageError(common && command !== undefined ? `option ${quoted.split('=')[0]} does not apply to ${command}` : `unknown option ${quoted}`, command);
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && quoted) {
    const option = quoted.split(' ')[0]!;
    const dashHint = /ambiguous/.test(message) ? ` (for a value starting with "-", write ${option}=VALUE)` : '';
    return new UsageError(`option ${option} needs a value${dashHint}`, command);
  }
  return new UsageError(message.split('. ')[0] ?? message, command);
}

function parseOptions(command: CommandSpec | undefined, argv: readonly string[], extra: OptionSpecs = {}) {
  try {
    return parseArgs({
      args: [...argv],
      options: toParseArgsOptions({ ...commonOptionsOf(command), ...(command?.options ?? {}), ...extra }),
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw usageErrorFrom(error, command?.name);
  }
}

/** Throws the usage error of too few or too many positional arguments for `positionals`. */
export function checkPositionals(positionals: readonly PositionalSpec[], args: readonly string[], command: string): void {
  const required = positionals.filter((positional) => positional.required);
  if (args.length < required.length) {
    const missing = required.slice(args.length).map((positional) => `<${positional.name}>`);
    throw new UsageError(`missing ${missing.join(' ')}`, command);
  }
  const variadic = positionals.some((positional) => positional.variadic);
  if (!variadic && args.length > positionals.length) {
    const extra = args[positionals.length];
    throw new UsageError(`unexpected argument "${extra}"`, command);
  }
}

/** The count check before the backend is open: a guru slug may be left out (guru-argument.ts checks again once that is known). */
function checkCommandPositionals(command: CommandSpec, args: readonly string[]): void {
  const positionals = command.positionals.map((positional) => (positional.guru ? { ...positional, required: false } : positional));
  checkPositionals(positionals, args, command.name);
}

function helpTopicOf(words: readonly string[]): HelpTopic {
  if (words.length === 0) return { kind: 'overview' };
  const command = findCommand(words.slice(0, 2).join(' ')) ?? findCommand(words[0]!);
  if (command) return { kind: 'command', command };
  if (isGroup(words[0]!)) return { kind: 'group', group: words[0]! };
  throw new UsageError(`unknown command "${words.join(' ')}"`);
}

export function parseCommandLine(argv: readonly string[]): CommandLine {
  const first = locateWord(argv);
  const word = first.word;

  if (word === undefined) {
    const command = findCommand(DEFAULT_COMMAND)!;
    const { values, positionals } = parseOptions(command, first.rest, VERSION_OPTION);
    if (values.version) return { kind: 'version' };
    if (values.help) return { kind: 'help', topic: { kind: 'overview' } };
    checkCommandPositionals(command, positionals);
    return { kind: 'run', command, args: positionals, values };
  }

  if (word === 'help') {
    const { positionals } = parseOptions(undefined, first.rest);
    return { kind: 'help', topic: helpTopicOf(positionals) };
  }

  let command = findCommand(word);
  let rest = first.rest;
  if (!command && isGroup(word)) {
    const second = locateWord(first.rest);
    const subcommand = second.word;
    if (subcommand === undefined) {
      if (second.rest.includes('--help') || second.rest.includes('-h')) return { kind: 'help', topic: { kind: 'group', group: word } };
      throw new UsageError(`"${word}" needs a subcommand`, word);
    }
    command = findCommand(`${word} ${subcommand}`);
    if (!command) throw new UsageError(`unknown command "${word} ${subcommand}"`, word);
    rest = second.rest;
  }
  if (!command) throw new UsageError(`unknown command "${word}"`);

  const { values, positionals } = parseOptions(command, rest);
  if (values.help) return { kind: 'help', topic: { kind: 'command', command } };
  checkCommandPositionals(command, positionals);
  return { kind: 'run', command, args: positionals, values };
}
