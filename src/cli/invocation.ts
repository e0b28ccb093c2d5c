/** This program as the person starts it, for commands and client entries printed as the next step. */
import { basename, isAbsolute, relative, resolve } from 'node:path';
import { defaultDataDir, type Config } from '../config.js';
import { shellQuote } from './output.js';

/** The script this process runs; undefined when it was started as `guru-mcp` from the PATH. */
function script(): string | undefined {
  const path = process.argv[1];
  return path === undefined || basename(path) === 'guru-mcp' ? undefined : path;
}

const hasOwnDataDir = (config: Config): boolean => config.dataDir !== defaultDataDir();

/**
 * A shell command running `words`: `guru-mcp …`, or `node` and the script
 * (relative to the working directory when inside it, as after `npm start`),
 * with the data directory when it is not the one a bare command uses.
 */
export function commandLine(config: Config, words: string): string {
  const path = script();
  const inside = path === undefined ? '' : relative(process.cwd(), path);
  const program = path === undefined ? 'guru-mcp' : `node ${shellQuote(inside.startsWith('..') || isAbsolute(inside) ? path : inside)}`;
  return `${program} ${words}${hasOwnDataDir(config) ? ` --data-dir ${shellQuote(config.dataDir)}` : ''}`;
}

/** The `mcpServers` entry that starts this program over stdio on `slug` (absolute paths: clients start it anywhere). */
export function stdioEntry(config: Config, slug: string): { command: string; args: string[]; env: Record<string, string> } {
  const path = script();
  return {
    command: path === undefined ? 'guru-mcp' : 'node',
    args: [...(path === undefined ? [] : [path]), 'stdio'],
    env: { GURU_DEFAULT_GURU: slug, ...(hasOwnDataDir(config) ? { GURU_DATA_DIR: resolve(config.dataDir) } : {}) },
  };
}
