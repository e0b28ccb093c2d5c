#!/usr/bin/env node
/**
 * The `guru-mcp` command. IDE clients spawn it often, so this file stays small:
 * it parses the arguments and imports only the module of the command that runs.
 */
import { readFileSync } from 'node:fs';
import { parseCommandLine } from './argv.js';
import type { CommandLine } from './argv.js';
import { CommandFailure, UsageError } from './failures.js';
import { helpCommandFor, renderHelp } from './help.js';
import { shareStderr } from './shared-stderr.js';
import type { CommandContext, Terminal } from './spec.js';
import { safeOutput } from './terminal-text.js';
import type { Config } from '../config.js';
import { openBackend } from '../compose.js';
import { isGuruError } from '../core/errors.js';
import { createLogger, describeError } from '../log.js';
import type { LogLevel } from '../log.js';

type RunCommand = Extract<CommandLine, { kind: 'run' }>;

// What commands write is made safe for a terminal here, once (terminal-text.ts): no command has to remember it.
const stderr = shareStderr(safeOutput(process.stderr));
const terminal: Terminal = { stdin: process.stdin, stdout: safeOutput(process.stdout), stderr };

function version(): string {
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return manifest.version;
}

function stringValue(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/**
 * Commands for people show warnings only, unless a log level was asked for
 * (flag, environment, or a config file that sets anything but the default).
 */
function logLevelOf(run: RunCommand, config: Config): LogLevel {
  const asked = run.values['log-level'] !== undefined || Boolean(process.env.GURU_LOG_LEVEL) || config.logLevel !== 'info';
  return run.command.audience === 'people' && !asked ? 'warn' : config.logLevel;
}

/** The settings, with the flags on top; a bad setting is a usage error of this command. */
async function configOf({ command, values }: RunCommand): Promise<Config> {
  // Loaded here, not at the top: zod is most of its cost, and help and --version do without it.
  const { ConfigError, loadConfig } = await import('../config.js');
  const port = stringValue(values.port);
  if (port !== undefined && !(/^\d{1,5}$/.test(port) && Number(port) <= 65535)) {
    throw new UsageError(`--port must be a whole number from 0 to 65535, not "${port}"`, command.name);
  }
  try {
    return loadConfig({
      configFile: stringValue(values.config),
      flags: {
        dataDir: stringValue(values['data-dir']),
        host: stringValue(values.host),
        port,
        logLevel: stringValue(values['log-level']) as LogLevel | undefined,
        defaultGuru: stringValue(values['default-guru']),
        backend: stringValue(values.backend) as Config['backend'] | undefined,
        apiUrl: stringValue(values['api-url']),
        publicUrl: stringValue(values['public-url']),
        tools: stringValue(values.tools),
        redisUrl: stringValue(values['redis-url']),
        databaseUrl: stringValue(values['database-url']),
        llmUrl: stringValue(values['llm-url']),
        llmModel: stringValue(values['llm-model']),
        llmImages: values['llm-images'] === true ? true : undefined,
      },
    });
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(error.message, command.name);
    throw error;
  }
}

async function execute(commandLine: CommandLine): Promise<number> {
  if (commandLine.kind === 'version') {
    terminal.stdout.write(`${version()}\n`);
    return 0;
  }
  if (commandLine.kind === 'help') {
    terminal.stdout.write(renderHelp(commandLine.topic));
    return 0;
  }
  const { values } = commandLine;
  // The command's modules load while the settings are read: most of a start-up goes into loading modules.
  const [config, module] = await Promise.all([configOf(commandLine), commandLine.command.load()]);
  const logger = createLogger(logLevelOf(commandLine, config), (line) => stderr.log(line));
  const context: CommandContext = {
    command: commandLine.command,
    args: commandLine.args,
    values,
    config,
    logger,
    terminal,
    openBackend: (use) => openBackend(config, logger, { processing: use?.processing ?? false }),
  };
  return module.run(context);
}

/** What the person sees for a failure, and the exit code: 2 for a wrong command line, 1 otherwise. */
function report(error: unknown): number {
  const write = (line: string) => terminal.stderr.write(`${line}\n`);
  if (error instanceof UsageError) {
    write(`guru-mcp: ${error.message}`);
    write(`Run '${helpCommandFor(error.command)}' for usage.`);
    return 2;
  }
  if (isGuruError(error) || error instanceof CommandFailure) {
    write(`guru-mcp: ${error.message}`);
    if (error.hint) write(`hint: ${error.hint}`);
    return 1;
  }
  write(`guru-mcp: unexpected failure: ${describeError(error)}`);
  if (process.env.GURU_LOG_LEVEL === 'debug' && error instanceof Error && error.stack) write(error.stack);
  return 1;
}

/** Exits once stdout and stderr have taken everything, so piped output is never cut short. */
function exit(code: number): void {
  process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
}

async function main(argv: readonly string[]): Promise<number> {
  try {
    return await execute(parseCommandLine(argv));
  } catch (error) {
    return report(error);
  }
}

// A reader that went away (`guru-mcp guru list | head -1`) is not a failure.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

void main(process.argv.slice(2)).then(exit);
