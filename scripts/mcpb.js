// Builds the desktop bundle (MCP Bundle, .mcpb) of guru-mcp: `npm run mcpb`.
//
// The bundle holds exactly what `npm install guru-mcp` gives a user: the package is packed
// (`npm pack`, whose prepack builds dist/) and installed from its tarball into an empty folder,
// production dependencies only. That folder, with mcpb/manifest.json, is the bundle; the host
// starts node_modules/guru-mcp/dist/bin/guru-mcp.js as the manifest's server.mcp_config says.
// The SQLite module is native, compiled on install for this platform and Node's ABI, so a bundle
// serves the platform it was built on (the manifest's compatibility.platforms says which).
//
//   node scripts/mcpb.js [--out FILE] [--from-install PREFIX]
//
// --from-install takes a folder where the tarball is already installed (the tests install it once
// and share it) instead of packing and installing again.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import process from 'node:process';
import { fileURLToPath, URL } from 'node:url';
import { parseArgs } from 'node:util';
import { packExtension } from '@anthropic-ai/mcpb';

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * Left out of the bundle, beside mcpb's own exclusions (source maps, .d.ts, node_modules/.bin, lock
 * files): the install folder's package.json, and what compiling better-sqlite3 leaves behind (its
 * SQLite sources, object files, a static library): of its build only Release/better_sqlite3.node
 * is loaded.
 */
const IGNORED = [
  '/package.json',
  'node_modules/better-sqlite3/deps/',
  'node_modules/better-sqlite3/src/',
  'node_modules/better-sqlite3/build/*',
  '!node_modules/better-sqlite3/build/Release',
  'node_modules/better-sqlite3/build/Release/*',
  '!node_modules/better-sqlite3/build/Release/better_sqlite3.node',
];

/** Runs npm as a user's shell would, without the npm_* settings `npm run` hands its scripts; its output on stderr. */
function npm(args, cwd) {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith('npm_') || ['npm_config_cache', 'npm_config_registry'].includes(name.toLowerCase())),
  );
  execFileSync('npm', args, { cwd, env, stdio: ['ignore', process.stderr, 'inherit'] });
}

const { values } = parseArgs({ options: { out: { type: 'string' }, 'from-install': { type: 'string' } } });
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const manifest = JSON.parse(readFileSync(join(root, 'mcpb', 'manifest.json'), 'utf8'));
if (manifest.version !== version) {
  throw new Error(`mcpb/manifest.json has version ${manifest.version}, package.json ${version}: make them equal`);
}
const out = resolve(values.out ?? join(root, `guru-mcp-${version}-${process.platform}-${process.arch}.mcpb`));

const work = mkdtempSync(join(tmpdir(), 'guru-mcp-mcpb-'));
try {
  const bundle = join(work, 'bundle');
  if (values['from-install'] !== undefined) {
    const from = resolve(values['from-install']);
    statSync(join(from, 'node_modules', 'guru-mcp', 'package.json'));
    cpSync(join(from, 'node_modules'), join(bundle, 'node_modules'), { recursive: true, verbatimSymlinks: true });
  } else {
    // The tarball's name is read from the folder: prepack's build writes to npm's output too.
    npm(['pack', '--pack-destination', work], root);
    const tarball = readdirSync(work).find((name) => name.endsWith('.tgz'));
    mkdirSync(bundle);
    writeFileSync(join(bundle, 'package.json'), '{ "private": true }\n');
    npm(['install', '--omit=dev', '--prefer-offline', '--no-audit', '--no-fund', join(work, tarball)], bundle);
  }
  manifest.compatibility = { ...manifest.compatibility, platforms: [process.platform] };
  writeFileSync(join(bundle, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  writeFileSync(join(bundle, '.mcpbignore'), `${IGNORED.join('\n')}\n`);
  if (!(await packExtension({ extensionPath: bundle, outputPath: out, silent: true }))) {
    throw new Error('mcpb pack failed (run `npx mcpb validate mcpb/manifest.json` for the reason)');
  }
  process.stdout.write(`${out} (${(statSync(out).size / 1024 / 1024).toFixed(1)} MB, ${process.platform}-${process.arch})\n`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
