// Bundles the `guru-mcp` command into dist/bin/. IDE clients spawn it often and
// most of a Node start-up goes into resolving and compiling module files, so the
// command ships as a few large files instead of hundreds of small ones. Code
// splitting keeps the commands' dynamic imports lazy.
import { chmodSync, rmSync } from 'node:fs';
import { fileURLToPath, URL } from 'node:url';
import { build } from 'esbuild';

// Paths come from this file's place in the project, never from the working directory:
// run from anywhere else, a relative dist/bin would delete that directory's files.
const root = fileURLToPath(new URL('..', import.meta.url));
const outdir = fileURLToPath(new URL('../dist/bin/', import.meta.url));

rmSync(outdir, { recursive: true, force: true });

await build({
  absWorkingDir: root,
  entryPoints: { 'guru-mcp': fileURLToPath(new URL('../src/cli/main.ts', import.meta.url)) },
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
  // CommonJS dependencies inside an ES module bundle still need a `require` for Node's built-ins.
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
});

chmodSync(new URL('../dist/bin/guru-mcp.js', import.meta.url), 0o755);
