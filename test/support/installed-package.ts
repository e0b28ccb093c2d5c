/**
 * The package as a user gets it: `npm pack` of this checkout, installed from the tarball into an
 * empty prefix, as `npx -y guru-mcp` or `npm install guru-mcp` would. Installing is slow (2 to
 * 2.5 min here: better-sqlite3 has no reachable prebuilt binary, so it compiles from source), so it
 * happens once per test process and every test that needs the package shares it.
 *
 * The tarball is packed with `--ignore-scripts`: the global setup has just built dist/, and the
 * `prepack` script would only build it again. Installation works from npm's cache
 * (`--prefer-offline`), like a user's second install.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';

const run = promisify(execFile);

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface InstalledPackage {
  /** The temporary directory holding the tarball and the prefix. */
  readonly dir: string;
  readonly tarball: string;
  /** What `npm pack --json` said of it: bytes packed and unpacked, and the files. */
  readonly packed: { readonly size: number; readonly unpackedSize: number; readonly files: readonly string[] };
  /** The prefix the tarball was installed into (holds node_modules/). */
  readonly prefix: string;
  /** node_modules/guru-mcp inside the prefix. */
  readonly packageDir: string;
  /** The installed command, node_modules/.bin/guru-mcp. */
  readonly bin: string;
  readonly installMs: number;
}

/**
 * npm's own settings that `npm test` exports to its scripts (npm_config_*, npm_package_*, …) are
 * left out, so that the nested npm reads its configuration as a user's shell would; where the
 * cache is, and the registry, stay.
 */
function npmEnvironment(): NodeJS.ProcessEnv {
  const kept = new Set(['npm_config_cache', 'npm_config_registry']);
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith('npm_') || kept.has(name.toLowerCase())));
}

async function npm(args: string[], cwd: string): Promise<string> {
  try {
    const { stdout } = await run('npm', args, { cwd, env: npmEnvironment(), maxBuffer: 64 * 1024 * 1024 });
    return stdout;
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`npm ${args.join(' ')} (in ${cwd}) failed:\n${String(stderr ?? '').slice(-4000)}\n${String(stdout ?? '').slice(-2000)}`, { cause: error });
  }
}

async function packAndInstall(): Promise<InstalledPackage> {
  const dir = mkdtempSync(join(tmpdir(), 'guru-mcp-package-'));
  try {
    const [packed] = JSON.parse(await npm(['pack', '--ignore-scripts', '--json', '--pack-destination', dir], ROOT)) as Array<{
      filename: string;
      size: number;
      unpackedSize: number;
      files: Array<{ path: string }>;
    }>;
    const tarball = join(dir, packed!.filename);
    const prefix = join(dir, 'prefix');
    mkdirSync(prefix);
    writeFileSync(join(prefix, 'package.json'), '{ "private": true }\n');
    const started = performance.now();
    await npm(['install', '--prefer-offline', '--no-audit', '--no-fund', tarball], prefix);
    return {
      dir,
      tarball,
      packed: { size: packed!.size, unpackedSize: packed!.unpackedSize, files: packed!.files.map((file) => file.path) },
      prefix,
      packageDir: join(prefix, 'node_modules', 'guru-mcp'),
      bin: join(prefix, 'node_modules', '.bin', 'guru-mcp'),
      installMs: performance.now() - started,
    };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

let installing: Promise<InstalledPackage> | undefined;

/** The packed and installed package, made on the first call of this test process and shared after. */
export function installedPackage(): Promise<InstalledPackage> {
  installing ??= packAndInstall();
  return installing;
}

/** Removes the package installed in this process, if any (the last user's afterAll). */
export async function removeInstalledPackage(): Promise<void> {
  if (installing === undefined) return;
  const settled = installing;
  installing = undefined;
  const installed = await settled.catch(() => undefined);
  if (installed) rmSync(installed.dir, { recursive: true, force: true });
}
