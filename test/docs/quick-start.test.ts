/**
 * The README as a newcomer reads it: its quick-start commands run as written, in an empty folder
 * with a fresh home (so a fresh data directory), `npx -y guru-mcp` resolving to this checkout
 * without the npm registry, and print what the README shows. Every relative link of the README and
 * of docs/ leads to a file that exists, and to a heading of it when it names one.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoopbackServer, type LoopbackServer } from '../support/loopback-server.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const README = join(ROOT, 'README.md');

/** The fenced blocks after a heading, up to the next heading of the same or a higher level. */
function blocksUnder(markdown: string, heading: string): { lang: string; text: string }[] {
  const lines = markdown.split('\n');
  const start = lines.indexOf(heading);
  if (start < 0) throw new Error(`README.md has no "${heading}" heading`);
  const level = /^#+/.exec(heading)?.[0].length ?? 2;
  const blocks: { lang: string; text: string }[] = [];
  for (let i = start + 1; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const depth = /^(#+) /.exec(line)?.[1]?.length;
    if (depth !== undefined && depth <= level) break;
    const fence = /^```(\w*)$/.exec(line);
    if (!fence) continue;
    const end = lines.indexOf('```', i + 1);
    blocks.push({ lang: fence[1] ?? '', text: lines.slice(i + 1, end).join('\n') });
    i = end;
  }
  return blocks;
}

/** What changes from run to run: session ids and the hash that ends an answer's slug. */
const steady = (text: string): string =>
  text.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<session>').replace(/-[0-9a-f]{12}\b/g, '-<hash>');

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function runScript(script: string, cwd: string, env: NodeJS.ProcessEnv): Promise<Run> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn('bash', ['-e', '-c', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (code) => resolvePromise({ code, stdout, stderr }));
  });
}

describe("the README's quick start", () => {
  let dir: string;
  let registry: LoopbackServer;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'guru-quick-start-'));
    // A registry that answers nothing and counts what npm asks of it.
    registry = await startLoopbackServer({});
    // An empty folder where `npx -y guru-mcp` finds this checkout installed (package.json's bin,
    // linked as npm links bins), so npx runs it without fetching.
    const work = join(dir, 'work');
    mkdirSync(join(work, 'node_modules', '.bin'), { recursive: true });
    mkdirSync(join(dir, 'home'));
    symlinkSync(ROOT, join(work, 'node_modules', 'guru-mcp'), 'dir');
    const bin = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string> }).bin['guru-mcp'];
    if (bin === undefined) throw new Error('package.json has no guru-mcp bin');
    symlinkSync(join('..', 'guru-mcp', bin), join(work, 'node_modules', '.bin', 'guru-mcp'));
    const inherited = Object.entries(process.env).filter(([name]) => !/^(GURU_|npm_|XDG_)/i.test(name));
    env = {
      ...Object.fromEntries(inherited),
      // A fresh home: the default data directory and npm's own files are the test's.
      HOME: join(dir, 'home'),
      npm_config_offline: 'true',
      npm_config_registry: registry.url('/'),
      npm_config_cache: join(dir, 'npm-cache'),
      npm_config_update_notifier: 'false',
      npm_config_fund: 'false',
      npm_config_audit: 'false',
    };
  });

  afterAll(async () => {
    await registry.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs as written and prints the answer the README shows, without the npm registry', async () => {
    const blocks = blocksUnder(readFileSync(README, 'utf8'), '## Quick start');
    const commands = blocks.find((block) => block.lang === 'sh');
    const shown = blocks.find((block) => block.lang === '');
    expect(commands?.text).toContain('npx -y guru-mcp ask');
    expect(shown, 'the README shows the answer after the commands').toBeDefined();

    const work = join(dir, 'work');
    const run = await runScript(commands?.text ?? '', work, env);
    expect(run.stderr).not.toMatch(/npm (ERR|error)/);
    expect(run.code, run.stderr).toBe(0);
    expect(steady(run.stdout)).toContain(steady(shown?.text ?? ''));
    // The guru was made in the default data directory, under the fresh home.
    const made = readdirSync(join(dir, 'home'), { recursive: true, encoding: 'utf8' }).filter((path) => path.endsWith(`guru-mcp${sep}guru.sqlite`));
    expect(made).toHaveLength(1);
    expect(registry.requests).toEqual([]);
  }, 300_000);

  it('would notice npm reaching for the registry', async () => {
    // A version the local link does not satisfy: npx asks the registry (and fails, offline or not).
    const run = await runScript('npx -y guru-mcp@99.0.0 --help', join(dir, 'work'), { ...env, npm_config_offline: 'false' });
    expect(run.code).not.toBe(0);
    expect(registry.requests.length).toBeGreaterThan(0);
  }, 300_000);
});

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens; repeats get -1, -2, … */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of withoutCode(markdown).split('\n')) {
    const heading = /^#{1,6} (.+)$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const text = heading.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/[*_`]/g, '');
    const base = text.trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** The text without fenced blocks and inline code, where a bracket is not a link. */
function withoutCode(markdown: string): string {
  return markdown.replace(/^```[^\n]*\n[\s\S]*?^```$/gm, '').replace(/`[^`]*`/g, '');
}

const docs = (): string[] => [README, ...readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => join(ROOT, 'docs', name))];

describe('links in the README and docs/', () => {
  it('lead to files that exist, and to their headings', () => {
    const broken: string[] = [];
    let checked = 0;
    for (const file of docs()) {
      const markdown = readFileSync(file, 'utf8');
      for (const match of withoutCode(markdown).matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = match[1] ?? '';
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:
        checked++;
        const [path = '', anchor] = target.split('#');
        const targetFile = path === '' ? file : resolve(dirname(file), path);
        const where = `${relative(ROOT, file)}: ${target}`;
        if (!existsSync(targetFile)) broken.push(`${where} (no such file)`);
        else if (anchor !== undefined && targetFile.endsWith('.md') && !anchorsOf(readFileSync(targetFile, 'utf8')).has(anchor)) {
          broken.push(`${where} (no such heading)`);
        }
      }
    }
    expect(broken).toEqual([]);
    expect(checked).toBeGreaterThan(20);
  });

  it('reach every page of docs/ from the README', () => {
    const readme = readFileSync(README, 'utf8');
    const pages = docs().slice(1).map((file) => relative(ROOT, file));
    expect(pages.filter((page) => !readme.includes(`](${page})`))).toEqual([]);
  });
});
