/** The help screens, rendered from the command descriptions of registry.ts. */
import type { HelpTopic } from './argv.js';
import { COMMANDS, COMMON_OPTIONS, VERSION_OPTION, commandsOfGroup, commonOptionsOf } from './registry.js';
import { program } from './program.js';
import type { CommandSpec, OptionSpecs } from './spec.js';

const PROGRAM = 'guru-mcp';

function synopsis(command: CommandSpec): string {
  const positionals = command.positionals.map((positional) => {
    const name = `<${positional.name}${positional.variadic ? '...' : ''}>`;
    return positional.required && !positional.guru ? name : `[${name}]`;
  });
  const options = Object.keys(command.options).length > 0 ? ['[options]'] : [];
  return [PROGRAM, command.name, ...positionals, ...options].join(' ');
}

function optionLines(options: OptionSpecs): string[] {
  const rows = Object.entries(options).map(([name, option]) => {
    const flag = `${option.short ? `-${option.short}, ` : ''}--${name}${option.value ? ` ${option.value}` : ''}`;
    return [flag, option.description] as const;
  });
  const width = Math.max(...rows.map(([flag]) => flag.length));
  return rows.map(([flag, description]) => `  ${flag.padEnd(width)}  ${description}`);
}

/** How a left-out slug is understood, for the commands that take one. */
const IMPLIED_GURU =
  'The <slug> may be left out when a guru is implied: the default guru (--default-guru, GURU_DEFAULT_GURU), else the only guru there is.';
const SLUG_OR_WORD = 'The first argument is read as the slug only when a guru of that name exists; otherwise it belongs to the command.';

function guruParagraph(command: CommandSpec): string | undefined {
  if (command.positionals[0]?.guru !== true) return undefined;
  return command.positionals.some((positional) => positional.variadic) ? `${IMPLIED_GURU} ${SLUG_OR_WORD}` : IMPLIED_GURU;
}

function commandHelp(command: CommandSpec): string {
  const lines = [`Usage: ${synopsis(command)}`, '', `${command.summary[0]!.toUpperCase()}${command.summary.slice(1)}.`];
  for (const paragraph of [...(command.details ?? []), guruParagraph(command)]) if (paragraph !== undefined) lines.push('', paragraph);
  if (Object.keys(command.options).length > 0) lines.push('', 'Options:', ...optionLines(command.options));
  lines.push('', 'Common options:', ...optionLines(commonOptionsOf(command)));
  if (command.examples?.length) lines.push('', 'Examples:', ...command.examples.map((example) => `  ${example}`));
  return lines.join('\n');
}

function commandTable(commands: readonly CommandSpec[]): string[] {
  const rows = commands.map((command) => [synopsis(command).slice(PROGRAM.length + 1).replace(' [options]', ''), command.summary] as const);
  const width = Math.max(...rows.map(([usage]) => usage.length));
  return rows.map(([usage, summary]) => `  ${usage.padEnd(width)}  ${summary}`);
}

function groupHelp(group: string): string {
  return [
    `Usage: ${PROGRAM} ${group} <subcommand> [options]`,
    '',
    'Subcommands:',
    ...commandTable(commandsOfGroup(group)),
    '',
    `Run '${PROGRAM} ${group} <subcommand> --help' for its options.`,
  ].join('\n');
}

function overview(): string {
  return [
    `${PROGRAM}: knowledge-assistant gurus for AI tools, as an MCP server, a REST API and this command.`,
    '',
    `Usage: ${PROGRAM} [command] [options]`,
    '',
    'Commands:',
    ...commandTable(COMMANDS),
    '  help [command]',
    '',
    'Common options:',
    ...optionLines({ ...COMMON_OPTIONS, ...VERSION_OPTION }),
    '',
    `Run '${PROGRAM} <command> --help' for a command's options.`,
    `${IMPLIED_GURU} ${SLUG_OR_WORD.replace('The first', "For a question, files or ids, the first")}`,
    'Settings: flags > environment (GURU_*) > config file (--config) > defaults.',
  ].join('\n');
}

export function renderHelp(topic: HelpTopic): string {
  switch (topic.kind) {
    case 'overview':
      return `${overview()}\n`;
    case 'group':
      return `${groupHelp(topic.group)}\n`;
    case 'command':
      return `${commandHelp(topic.command)}\n`;
  }
}

/** The command whose help explains a usage error, as it is typed: this program as it was run (program.ts). */
export function helpCommandFor(command: string | undefined): string {
  return command ? `${program()} ${command} --help` : `${program()} --help`;
}
