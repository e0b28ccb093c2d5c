// Bundles the `guru-mcp` command into dist/bin/. IDE clients spawn it often and
// most of a Node start-up goes into resolving and compiling module files, so the
// command ships as a few large files instead of hundreds of small ones. Code
// splitting keeps the commands' dynamic imports lazy.
import { chmodSync, rmSync } from 'node:fs';
import { build } from 'esbuild';

rmSync('dist/bin', { recursive: true, force: true });

await build({
  entryPoints: { 'guru-mcp': 'src/cli/main.ts' },
  outdir: 'dist/bin',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: 'linked',
  logLevel: 'warning',
  // Native addons and packages that locate files of their own at run time stay in node_modules.
  external: ['better-sqlite3', 'keyv', '@keyv/sqlite'],
  // CommonJS dependencies inside an ES module bundle still need a `require` for Node's built-ins.
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
});

chmodSync('dist/bin/guru-mcp.js', 0o755);
