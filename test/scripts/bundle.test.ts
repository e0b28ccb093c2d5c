/**
 * scripts/bundle.js finds its paths from its own location. It runs here from a
 * copy of the project made of links (so the real dist/bin, which other tests
 * spawn, is left alone), with the working directory somewhere else entirely.
 * Like `npm run build`, it needs tsc's dist/ (the tools' listed schemas come from it).
 */
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ROOT } from '../cli/run-cli.js';

const run = promisify(execFile);

describe('scripts/bundle.js', () => {
  let project: string;
  let elsewhere: string;

  beforeEach(() => {
    project = mkdtempSync(join(tmpdir(), 'guru-bundle-project-'));
    mkdirSync(join(project, 'scripts'));
    copyFileSync(join(ROOT, 'scripts', 'bundle.js'), join(project, 'scripts', 'bundle.js'));
    for (const entry of ['src', 'node_modules', 'package.json']) symlinkSync(join(ROOT, entry), join(project, entry));
    // tsc's output, which the bundle lists the tools' schemas from; dist/bin stays the copy's own.
    mkdirSync(join(project, 'dist'));
    for (const entry of readdirSync(join(ROOT, 'dist')).filter((name) => name !== 'bin')) symlinkSync(join(ROOT, 'dist', entry), join(project, 'dist', entry));

    elsewhere = mkdtempSync(join(tmpdir(), 'guru-bundle-cwd-'));
    mkdirSync(join(elsewhere, 'dist', 'bin'), { recursive: true });
    writeFileSync(join(elsewhere, 'dist', 'bin', 'keep.txt'), 'not the bundle’s');
  });

  afterEach(() => {
    rmSync(project, { recursive: true, force: true });
    rmSync(elsewhere, { recursive: true, force: true });
  });

  it("builds into its own project's dist/bin and leaves the working directory alone", async () => {
    await run(process.execPath, [join(project, 'scripts', 'bundle.js')], { cwd: elsewhere });

    expect(readFileSync(join(elsewhere, 'dist', 'bin', 'keep.txt'), 'utf8')).toBe('not the bundle’s');
    expect(existsSync(join(elsewhere, 'dist', 'bin', 'guru-mcp.js'))).toBe(false);
    const bundle = readFileSync(join(project, 'dist', 'bin', 'guru-mcp.js'), 'utf8');
    expect(bundle).toContain('createRequire as __createRequire');
  });
});
