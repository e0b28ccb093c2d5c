/**
 * Where the entry file of one of ingestion's worker threads is: dist/bin/<file> of the package
 * this module belongs to, built by scripts/bundle.js, wherever this module runs from (the bundle,
 * tsc's dist/, or the TypeScript sources under vitest, whose global setup builds dist/ first).
 */
import { existsSync } from 'node:fs';

export function builtWorkerEntry(file: string, what: string): URL {
  for (let folder = new URL('.', import.meta.url); ; folder = new URL('..', folder)) {
    if (existsSync(new URL('package.json', folder))) {
      const entry = new URL(`dist/bin/${file}`, folder);
      if (!existsSync(entry)) throw new Error(`The ${what} ${entry.pathname} is missing; build it with \`npm run build\`.`);
      return entry;
    }
    if (folder.pathname === '/') throw new Error(`The ${what} was not found: no package.json above the engine`);
  }
}
