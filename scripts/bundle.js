// Bundles the `guru-mcp` command into dist/bin/. IDE clients spawn it often and
// most of a Node start-up goes into resolving and compiling module files, so the
// command ships as a few large files instead of hundreds of small ones. Code
// splitting keeps the commands' dynamic imports lazy.
//
// The web interface (src/web/) is loaded by `serve` only, through a dynamic import,
// so it stays out of the chunks the stdio server loads; its browser files are copied
// to dist/bin/web/.
//
// The extraction worker (HTML and documents to Markdown, in worker threads) is a
// second entry point, dist/bin/extraction-worker.js; src/engine/ingest/extract/
// extraction-pool.ts finds it there whether the engine runs from this bundle, from
// tsc's dist/ or from the TypeScript sources under vitest.
import { chmodSync, cpSync, readFileSync, rmSync } from 'node:fs';
import { fileURLToPath, URL } from 'node:url';
import { build } from 'esbuild';

// Paths come from this file's place in the project, never from the working directory:
// run from anywhere else, a relative dist/bin would delete that directory's files.
const root = fileURLToPath(new URL('..', import.meta.url));
const outdir = fileURLToPath(new URL('../dist/bin/', import.meta.url));

/**
 * linkedom gives every node it creates (every element and text of a page) an entry in a WeakMap
 * of event listeners, with a Map of its own, in case a listener is ever added. Extraction never
 * adds one, and those entries were a third of parsing time and most of its garbage collection.
 * This plugin makes the map appear on first use instead. Changing linkedom's classes at run time
 * does not do: V8 then builds every node on a slow path. The exact text is required, so that an
 * upgrade of linkedom (pinned in package.json) that moves it fails the build instead of
 * silently losing the change.
 */
const lazyLinkedomListeners = {
  name: 'lazy-linkedom-listeners',
  setup(plugin) {
    const edits = [
      ['  constructor() {\n    wm.set(this, new Map);\n  }', '  constructor() {\n  }'],
      [
        '  addEventListener(type, listener, options) {\n    const map = wm.get(this);',
        '  addEventListener(type, listener, options) {\n    let map = wm.get(this);\n    if (!map) wm.set(this, map = new Map);',
      ],
      ['  removeEventListener(type, listener) {\n    const map = wm.get(this);\n    if (map.has(type)) {', '  removeEventListener(type, listener) {\n    const map = wm.get(this);\n    if (map && map.has(type)) {'],
    ];
    plugin.onLoad({ filter: /[\\/]linkedom[\\/]esm[\\/]interface[\\/]event-target\.js$/ }, ({ path }) => {
      let contents = readFileSync(path, 'utf8');
      for (const [from, to] of edits) {
        if (!contents.includes(from)) throw new Error(`${path} no longer reads as scripts/bundle.js expects; revisit lazyLinkedomListeners`);
        contents = contents.replace(from, to);
      }
      return { contents, loader: 'js' };
    });
  },
};

rmSync(outdir, { recursive: true, force: true });

await build({
  absWorkingDir: root,
  entryPoints: {
    'guru-mcp': fileURLToPath(new URL('../src/cli/main.ts', import.meta.url)),
    'extraction-worker': fileURLToPath(new URL('../src/engine/ingest/extract/extraction-worker.ts', import.meta.url)),
  },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: 'linked',
  logLevel: 'warning',
  // Native addons and packages that locate files of their own at run time stay in node_modules.
  external: ['better-sqlite3', 'sqlite-vec', 'keyv', '@keyv/sqlite'],
  plugins: [lazyLinkedomListeners],
  // CommonJS dependencies inside an ES module bundle still need a `require` for Node's built-ins.
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
});

// The web interface's pages, styles and browser modules, served as they are (src/web/assets-store.ts finds them here).
cpSync(new URL('../src/web/assets/', import.meta.url), new URL('../dist/bin/web/', import.meta.url), { recursive: true });

chmodSync(new URL('../dist/bin/guru-mcp.js', import.meta.url), 0o755);
