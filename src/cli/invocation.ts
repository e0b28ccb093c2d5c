/** This program's commands as hints print them (program.ts), and the entry an MCP client starts it with. */
import { resolve } from 'node:path';
import { defaultDataDir, type Config } from '../config.js';
import { shellQuote } from './output.js';
import { current, NAME, program, type Invocation } from './program.js';

const hasOwnDataDir = (config: Config): boolean => config.dataDir !== defaultDataDir();

/**
 * A shell command running `words` (already quoted for a shell) with this program, and with the
 * data directory when it is not the one a bare command uses: what every hint prints.
 */
export function commandLine(config: Config, words: string, invocation?: Invocation): string {
  return `${program(invocation)} ${words}${hasOwnDataDir(config) ? ` --data-dir ${shellQuote(config.dataDir)}` : ''}`;
}

/** `commandLine` for one configuration, for renderers that print hints. */
export type CommandLine = (words: string) => string;
export const commandLineOf = (config: Config): CommandLine => (words) => commandLine(config, words);

/**
 * The `mcpServers` entry that starts this program over stdio on `slug` (absolute paths: clients start
 * it anywhere). Run through npx, the entry is `npx -y guru-mcp stdio`: the path npx ran lies in its
 * cache, which npm may clear.
 */
export function stdioEntry(config: Config, slug: string, invocation: Invocation = current()): { command: string; args: string[]; env: Record<string, string> } {
  const script = invocation.argv[1];
  const env = { GURU_DEFAULT_GURU: slug, ...(hasOwnDataDir(config) ? { GURU_DATA_DIR: resolve(config.dataDir) } : {}) };
  const name = program(invocation);
  if (script === undefined || name === NAME) return { command: NAME, args: ['stdio'], env };
  if (name === `npx ${NAME}`) return { command: 'npx', args: ['-y', NAME, 'stdio'], env };
  return { command: 'node', args: [resolve(invocation.cwd, script), 'stdio'], env };
}
