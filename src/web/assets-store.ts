/**
 * The interface's files: src/web/assets/ (served as they are: no build step),
 * plus marked's browser build from node_modules for rendering Markdown. Read once,
 * when the interface is created; they are small.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface Asset {
  readonly type: string;
  readonly body: Buffer;
}

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

/**
 * Where the files are: beside this module in the sources (and tsc's output), or
 * in dist/bin/web/, where scripts/bundle.js copies them for the bundled command
 * (whose chunks all sit in dist/bin/).
 */
function assetsDirectory(): string {
  const candidates = [new URL('./assets/', import.meta.url), new URL('./web/', import.meta.url)].map((url) => fileURLToPath(url));
  const found = candidates.find((dir) => existsSync(join(dir, 'index.html')));
  if (found === undefined) throw new Error(`the web interface's files are missing (looked in ${candidates.join(', ')})`);
  return found;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

/** Every asset by its URL path (`/assets/app.js`); the page shell under `/index.html`. */
export function loadAssets(): ReadonlyMap<string, Asset> {
  const dir = assetsDirectory();
  const assets = new Map<string, Asset>();
  for (const file of filesUnder(dir)) {
    const type = TYPES[extname(file)];
    if (type === undefined) continue;
    const path = relative(dir, file).split(sep).join('/');
    assets.set(path === 'index.html' ? '/index.html' : `/assets/${path}`, { type, body: readFileSync(file) });
  }
  const marked = createRequire(import.meta.url).resolve('marked');
  assets.set('/assets/vendor/marked.js', { type: TYPES['.js'] as string, body: readFileSync(marked) });
  return assets;
}
