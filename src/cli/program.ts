/**
 * This program as the person started it, for every command a hint prints (the next step, how to
 * follow up or vote, where the help is): `guru-mcp` only when that name on the PATH is this
 * program; `npx guru-mcp` when npm found it in a project's node_modules; otherwise the script or
 * bin as it was run (`node dist/bin/guru-mcp.js` after `npm start`). Light: main.ts reads it for
 * the help hint of a usage error before any setting is loaded.
 */
import { accessSync, constants, realpathSync } from 'node:fs';
import { basename, delimiter, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { shellQuote } from './output.js';

export const NAME = 'guru-mcp';

/** What a program's invocation depends on: the process's, unless a test says otherwise. */
export interface Invocation {
  readonly argv: readonly string[];
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
}

export const current = (): Invocation => ({ argv: process.argv, env: process.env, cwd: process.cwd() });

function realPath(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/** Whether the shell finds `script` as the first `guru-mcp` on the PATH. */
function isFirstOnPath(script: string, env: NodeJS.ProcessEnv): boolean {
  const target = realPath(script);
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir === '' || !isAbsolute(dir)) continue;
    const candidate = join(dir, NAME);
    try {
      accessSync(candidate, constants.X_OK);
    } catch {
      continue;
    }
    return target !== undefined && realPath(candidate) === target;
  }
  return false;
}

/** A path as the person would type it here: relative when inside the working directory (`./` first for a program to run). */
function typed(path: string, cwd: string, asProgram = false): string {
  const inside = relative(cwd, path);
  if (inside === '' || inside.startsWith('..') || isAbsolute(inside)) return shellQuote(path);
  return shellQuote(asProgram && !inside.includes(sep) ? `.${sep}${inside}` : inside);
}

/** How this program was run, as a shell command without arguments. */
export function program({ argv, env, cwd }: Invocation = current()): string {
  const script = argv[1];
  if (script === undefined) return NAME;
  const path = resolve(cwd, script);
  // npx and `npm exec` run a project's bin from node_modules/.bin (or npm's cache, on Windows its
  // script directly): the shell outside npm does not find it by name.
  const viaNpm = path.includes(`${sep}node_modules${sep}.bin${sep}`) || (env.npm_command === 'exec' && path.includes(`${sep}node_modules${sep}${NAME}${sep}`));
  if (viaNpm) return `npx ${NAME}`;
  if (basename(path) === NAME) return isFirstOnPath(path, env) ? NAME : typed(path, cwd, true);
  return `node ${typed(path, cwd)}`;
}
