/**
 * The package and the desktop bundle as users get them: `npm pack`, installed from the tarball into
 * an empty prefix (what `npx -y guru-mcp` does), started as `guru-mcp stdio` and `guru-mcp serve`;
 * and the .mcpb built from that same install, unpacked and started as its manifest says. One install
 * serves every test here (test/support/installed-package.ts: about 1.5 min, most of it compiling
 * better-sqlite3).
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { promisify } from 'node:util';
import { getMcpConfigForManifest, type McpbManifestAny } from '@anthropic-ai/mcpb';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { CallToolResult, Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENVIRONMENT } from '../../src/config.js';
import { newClient } from '../mcp/support.js';
import { answerOf } from '../support/mcp-answer.js';
import { listeningOn } from '../support/serve.js';
import { installedPackage, removeInstalledPackage, ROOT, type InstalledPackage } from '../support/installed-package.js';

const run = promisify(execFile);
const MCPB_CLI = join(ROOT, 'node_modules', '@anthropic-ai', 'mcpb', 'dist', 'cli', 'cli.js');
const PACKAGE = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string; mcpName: string };
/** Installing compiles better-sqlite3: minutes on a busy machine. Waits for the install to end, not a measure of it. */
const INSTALL_TIMEOUT = 20 * 60_000;
/** Building the bundle copies and zips about 100 MB of node_modules: half a minute on a busy machine. Not a measure either. */
const BUNDLE_TIMEOUT = 10 * 60_000;

const GUIDE = '# Frobnicator installation\n\n## Installing\n\nRun npm install -g frobnicator; the frob command lands on your PATH.\n';

/**
 * Packages the built files name but never need: each is loaded inside a try, or is text. Anything
 * else the built command imports or requires must resolve from the installed package.
 */
const OPTIONAL = new Map([
  ['cssstyle', "cssom's richer style declarations, in a try (linkedom works without)"],
  ['canvas', "linkedom's canvas element, in a try"],
  ['pg-native', "pg's native bindings, required in a try only when asked for (`pg.native`), never here"],
  ['node-readable-to-web-readable-stream', "pdf.js's fallback for a Node without Readable.toWeb"],
  ['pdfjs-dist/package.json', "unpdf's standard fonts, looked up in a try (its own pdf.js is bundled)"],
  ['ajv/dist/runtime/validation_error', "text of ajv's standalone code generation, never loaded"],
  ['ajv/dist/runtime/uri', "text of ajv's standalone code generation, never loaded"],
  ['ajv/dist/runtime/ucs2length', "text of ajv's standalone code generation, never loaded"],
  ['ajv/dist/runtime/equal', "text of ajv's standalone code generation, never loaded"],
  ['ajv-formats/dist/formats', "text of ajv's standalone code generation, never loaded"],
  ['bun:sqlite', "@keyv/sqlite's driver for Bun, never loaded on Node (the state store brings its own)"],
  ['@node-rs/xxhash', "the Redis client's DIGEST helper, in a try (the state store never calls it)"],
  ['@opentelemetry/api', "the Redis client's OpenTelemetry metrics, in a try (never initialized)"],
  ['@opentelemetry/sdk-metrics', "text of the Redis client's OpenTelemetry example, never loaded"],
  ['redis', "text of the Redis client's OpenTelemetry example, never loaded"],
]);

/** Every way the built files name a package: import, dynamic import, require, require.resolve, createRequire(import.meta.url)(…), import.meta.resolve. */
const NAMED_PACKAGE =
  /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\b(?:__)?require\s*\(\s*|\brequire\.resolve\s*\(\s*|createRequire\(import\.meta\.url\)(?:\.resolve)?\s*\(\s*|import\.meta\.resolve\s*\(\s*)["']([^"'$\s]+)["']/g;

function textOf(result: CallToolResult): string {
  return result.content.map((block) => (block.type === 'text' ? block.text : '')).join('\n');
}

/** The environment of a host that sets only what it is told: no GURU_* of the test run leaks in. */
function hostEnvironment(extra: Record<string, string> = {}): Record<string, string> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name, value]) => !name.startsWith('GURU_') && value !== undefined)) as Record<string, string>;
  return { ...env, ...extra };
}

async function connect(command: string, args: string[], env: Record<string, string>): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({ command, args, env, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const client = newClient('2025-11-25');
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

let installed: InstalledPackage;
let dir: string;

beforeAll(async () => {
  installed = await installedPackage();
  dir = mkdtempSync(join(tmpdir(), 'guru-mcp-package-test-'));
}, INSTALL_TIMEOUT);

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await removeInstalledPackage();
});

describe('the npm package, installed from its tarball into an empty prefix', () => {
  it('holds the built command, its workers and web files, and no sources, maps or tests', () => {
    const files = installed.packed.files;
    for (const file of ['package.json', 'README.md', 'LICENSE', 'dist/bin/guru-mcp.js', 'dist/bin/extraction-worker.js', 'dist/bin/writer-thread.js', 'dist/bin/mp3-worker.js', 'dist/bin/web/index.html']) {
      expect(files).toContain(file);
    }
    expect(files.filter((file) => !file.startsWith('dist/bin/') && !['package.json', 'README.md', 'LICENSE'].includes(file))).toEqual([]);
    expect(files.filter((file) => file.endsWith('.map'))).toEqual([]);
    const manifest = JSON.parse(readFileSync(join(installed.packageDir, 'package.json'), 'utf8')) as { bin: Record<string, string>; mcpName: string; scripts: Record<string, string> };
    expect(manifest.bin['guru-mcp']).toBe('dist/bin/guru-mcp.js');
    expect(manifest.mcpName).toBe(PACKAGE.mcpName);
    // `npm pack` and `npm publish` build first (the tests pack with --ignore-scripts: dist/ is fresh).
    expect(manifest.scripts.prepack).toBe('npm run build');
    // No dev dependency came along: the package runs on its dependencies alone.
    for (const tool of ['typescript', 'vitest', 'esbuild', '@modelcontextprotocol/client']) {
      expect(() => statSync(join(installed.prefix, 'node_modules', tool))).toThrow();
    }
  });

  it('installs nothing whose engines field excludes Node 20: an install on Node 20 prints no EBADENGINE warnings', () => {
    const modules = join(installed.prefix, 'node_modules');
    const names = readdirSync(modules).flatMap((name) =>
      name.startsWith('@') ? readdirSync(join(modules, name)).map((inner) => `${name}/${inner}`) : name.startsWith('.') ? [] : [name],
    );
    const needNewer = names.filter((name) => {
      const { engines } = JSON.parse(readFileSync(join(modules, name, 'package.json'), 'utf8')) as { engines?: { node?: string } };
      // The lowest major a range starts from ("^18.17.0 || >=20.5.0" starts from 18).
      const lowest = /(\d+)/.exec(engines?.node ?? '')?.[1];
      return lowest !== undefined && Number(lowest) > 20;
    });
    expect(needNewer).toEqual([]);
  });

  it('resolves every package the built files load at run time, lazily loaded chunks and workers included', async () => {
    const bin = join(installed.packageDir, 'dist', 'bin');
    const named = new Set<string>();
    for (const file of readdirSync(bin).filter((name) => name.endsWith('.js'))) {
      for (const [, specifier] of readFileSync(join(bin, file), 'utf8').matchAll(NAMED_PACKAGE)) {
        if (!isBuiltin(specifier!) && !specifier!.startsWith('node:') && !/^[./]/.test(specifier!)) named.add(specifier!);
      }
    }
    const needed = [...named].filter((specifier) => !OPTIONAL.has(specifier));
    expect(needed).toEqual(expect.arrayContaining(['better-sqlite3', 'sqlite-vec', 'marked', 'robots-parser']));
    // Resolved by Node itself from beside the built files, for import and for require.
    const resolver = `
      import { createRequire } from 'node:module';
      const require = createRequire(process.cwd() + '/guru-mcp.js');
      const missing = JSON.parse(process.argv[1]).filter((name) => {
        try { import.meta.resolve(name); return false; } catch {}
        try { require.resolve(name); return false; } catch {}
        return true;
      });
      process.stdout.write(JSON.stringify(missing));`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', resolver, JSON.stringify(needed)], { cwd: bin });
    expect(JSON.parse(stdout)).toEqual([]);
  });

  it('serves MCP over stdio from the installed command: initialize, tools/list, and an answer from added text', async () => {
    const dataDir = join(dir, 'stdio-data');
    await run(installed.bin, ['guru', 'create', 'frob', '--name', 'Frobnicator', '--json', '--data-dir', dataDir], { env: hostEnvironment() });
    const { client, stderr } = await connect(installed.bin, ['stdio', '--data-dir', dataDir], hostEnvironment());
    try {
      expect(client.getServerVersion()).toMatchObject({ name: 'guru-mcp', version: PACKAGE.version });
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['ask', 'add_sources', 'semantic_search', 'list_gurus']));
      // The writer thread and SQLite of the installed package at work.
      const added = (await client.callTool({ name: 'add_sources', arguments: { text_sources: [{ name: 'Install guide', content: GUIDE }], wait: true } })) as CallToolResult;
      expect(added.isError, `${textOf(added)}\n${stderr()}`).toBeFalsy();
      const asked = (await client.callTool({ name: 'ask', arguments: { question: 'How do I install Frobnicator?' } })) as CallToolResult;
      expect(asked.isError, `${textOf(asked)}\n${stderr()}`).toBeFalsy();
      expect(answerOf(asked).content).toContain('npm install -g frobnicator');
    } finally {
      await client.close();
    }
  });

  it('serves REST, the web interface and its vendored Markdown renderer from `guru-mcp serve`', async () => {
    const child = spawn(installed.bin, ['serve', '--port', '0', '--data-dir', join(dir, 'serve-data')], { env: hostEnvironment(), stdio: ['ignore', 'ignore', 'pipe'] });
    const exited = new Promise((done) => child.once('exit', done));
    try {
      const base = await listeningOn(child);
      const health = await fetch(`${base}/healthz`);
      expect(health.status).toBe(200);
      const page = await fetch(`${base}/`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<html');
      const marked = await fetch(`${base}/assets/vendor/marked.js`);
      expect(marked.status).toBe(200);
      expect((await marked.text()).length).toBeGreaterThan(1000);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  });
});

describe('the desktop bundle (.mcpb)', () => {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'mcpb', 'manifest.json'), 'utf8')) as McpbManifestAny & {
    user_config: Record<string, { sensitive?: boolean; default?: unknown }>;
    server: { mcp_config: { env: Record<string, string> } };
  };

  it('has a manifest `mcpb validate` accepts, whose settings reach the server as its environment variables', async () => {
    const { stdout } = await run(process.execPath, [MCPB_CLI, 'validate', join(ROOT, 'mcpb', 'manifest.json')]);
    expect(stdout).toContain('validation passes');
    expect(manifest.version).toBe(PACKAGE.version);
    expect(Object.keys(manifest.user_config).sort()).toEqual(['data_dir', 'default_guru', 'llm_api_key', 'llm_model', 'llm_url', 'tool_groups']);
    expect(manifest.user_config.llm_api_key!.sensitive).toBe(true);
    const known = new Set(Object.values(ENVIRONMENT));
    for (const [name, value] of Object.entries(manifest.server.mcp_config.env)) {
      expect(known, name).toContain(name);
      const setting = /^\$\{user_config\.(\w+)\}$/.exec(value)?.[1];
      expect(manifest.user_config[setting!], `${name}=${value}`).toBeDefined();
      // A setting left empty must reach the server as empty (then unset), not as the literal ${…}.
      expect(manifest.user_config[setting!]!.default).toBe('');
    }
  });

  it('starts from the unpacked bundle exactly as the manifest says, with the data directory chosen', async () => {
    const bundle = join(dir, 'guru-mcp.mcpb');
    await run(process.execPath, [join(ROOT, 'scripts', 'mcpb.js'), '--from-install', installed.prefix, '--out', bundle], { cwd: ROOT });
    const unpacked = join(dir, 'unpacked');
    await run(process.execPath, [MCPB_CLI, 'unpack', bundle, unpacked]);
    const shipped = JSON.parse(readFileSync(join(unpacked, 'manifest.json'), 'utf8')) as McpbManifestAny;
    expect(shipped.compatibility?.platforms).toEqual([process.platform]);
    const dataDir = join(dir, 'bundle-data');
    const config = await getMcpConfigForManifest({
      manifest: shipped,
      extensionPath: unpacked,
      systemDirs: { HOME: tmpdir(), DESKTOP: tmpdir(), DOCUMENTS: tmpdir(), DOWNLOADS: tmpdir(), DATA: tmpdir() },
      userConfig: { data_dir: dataDir, default_guru: 'frob' },
      pathSeparator: sep,
    });
    expect(config).toBeDefined();
    expect(config!.env).toMatchObject({ GURU_DATA_DIR: dataDir, GURU_DEFAULT_GURU: 'frob', GURU_LLM_URL: '', GURU_LLM_API_KEY: '' });
    const { client, stderr } = await connect(config!.command, config!.args ?? [], hostEnvironment(config!.env));
    try {
      expect(client.getServerVersion()).toMatchObject({ name: 'guru-mcp', version: PACKAGE.version });
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['ask', 'add_sources', 'create_guru']));
      const created = (await client.callTool({ name: 'create_guru', arguments: { slug: 'frob', name: 'Frobnicator' } })) as CallToolResult;
      expect(created.isError, `${textOf(created)}\n${stderr()}`).toBeFalsy();
      // The data directory of user_config is where the server keeps its database.
      expect(readdirSync(dataDir).length).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
  }, BUNDLE_TIMEOUT);
});
