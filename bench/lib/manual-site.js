// The PostgreSQL 15 manual (Debian's postgresql-doc-15) on disk, and a static file server that
// serves it on 127.0.0.1: the site that the manual, crawl and under-load parts ingest (the qa part
// serves other Debian documentation packages the same way).
import { spawn, spawnSync } from 'node:child_process';
import console from 'node:console';
import { existsSync, readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { extname, join, resolve, sep } from 'node:path';
import process from 'node:process';
import { URL, fileURLToPath } from 'node:url';

const MANUAL_PACKAGE = 'postgresql-doc-15';
export const manualDir = resolve(process.env.GURU_BENCH_MANUAL_DIR ?? `/usr/share/doc/${MANUAL_PACKAGE}/html`);

/** The manual's HTML pages, by file name. */
export function manualPages() {
  return readdirSync(manualDir)
    .filter((name) => name.endsWith('.html'))
    .sort();
}

/** Makes sure the manual is on disk: installs the Debian package when missing and allowed. Returns why not, or undefined. */
export function ensureManual() {
  if (existsSync(manualDir)) return undefined;
  if (process.env.GURU_BENCH_MANUAL_DIR) return `${manualDir} does not exist`;
  return ensureDebianPackage(MANUAL_PACKAGE, manualDir, 'or set GURU_BENCH_MANUAL_DIR');
}

/**
 * Makes sure `dir` is on disk, installing the Debian package that holds it when it is missing and
 * the bench runs as root. Returns why it is not there, or undefined.
 */
export function ensureDebianPackage(name, dir, alternative = '') {
  if (existsSync(dir)) return undefined;
  if (process.platform !== 'linux' || process.getuid?.() !== 0) {
    return `${dir} is missing; install it with \`apt-get install -y ${name}\` (as root)${alternative ? ` ${alternative}` : ''}`;
  }
  console.log(`${dir} is missing; installing ${name}...`);
  const aptGet = (...args) =>
    spawnSync('apt-get', args, { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  // Never at the cost of an installed package: Debian's nodejs-doc replaces NodeSource's nodejs,
  // the Node.js that runs this bench.
  const install = () => aptGet('install', '-y', '--no-install-recommends', '--no-remove', name);
  let installed = install();
  // A fresh system may not know the package yet.
  if (!installed.error && installed.status !== 0 && aptGet('update').status === 0) installed = install();
  if (installed.error || installed.status !== 0 || !existsSync(dir)) {
    const why = installed.error?.message ?? `apt-get exited with ${installed.status}; it refuses a package that would remove another`;
    return `${name} could not be installed (${why}): install it by hand if that is what you want`;
  }
  return undefined;
}

const CONTENT_TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.htm': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.gif': 'image/gif',
  '.jpg': 'image/jpeg',
  '.txt': 'text/plain; charset=utf-8',
};

/**
 * A small static file server for `root` on 127.0.0.1: GET and HEAD, a content type by extension,
 * index.html for folders, 404 for anything missing or outside the folder.
 * `fetches()` counts the GET requests of each path.
 * @returns {Promise<{ origin: string, requests: () => number, fetches: () => Map<string, number>, close: () => Promise<void> }>}
 */
export async function serveFolder(root) {
  let requests = 0;
  const fetches = new Map();
  const server = createServer(async (request, response) => {
    requests += 1;
    if (request.method === 'GET') fetches.set(request.url, (fetches.get(request.url) ?? 0) + 1);
    const notFound = () => response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found\n');
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' }).end('method not allowed\n');
      return;
    }
    let path;
    try {
      path = decodeURIComponent(new URL(request.url ?? '/', 'http://localhost').pathname);
    } catch {
      notFound();
      return;
    }
    let file = resolve(root, `.${path}`);
    if (file !== root && !file.startsWith(`${root}${sep}`)) {
      notFound();
      return;
    }
    if (path.endsWith('/')) file = join(file, 'index.html');
    let body;
    try {
      body = await readFile(file);
    } catch {
      notFound();
      return;
    }
    response.writeHead(200, {
      'content-type': CONTENT_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream',
      'content-length': body.length,
    });
    response.end(request.method === 'HEAD' ? undefined : body);
  });
  await new Promise((done) => server.listen(0, '127.0.0.1', done));
  return {
    origin: `http://127.0.0.1:${server.address().port}`,
    requests: () => requests,
    fetches: () => fetches,
    close: () =>
      new Promise((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

/** serveFolder(root) in a child process (lib/folder-server.js). */
export async function serveFolderInChild(root) {
  const child = spawn(process.execPath, [fileURLToPath(new URL('./folder-server.js', import.meta.url)), root], { stdio: ['pipe', 'pipe', 'inherit'] });
  child.stdout.setEncoding('utf8');
  const origin = await new Promise((done, fail) => {
    child.stdout.once('data', (line) => done(line.trim()));
    child.once('exit', (code) => fail(new Error(`the folder server exited with code ${code}`)));
  });
  return {
    origin,
    close: async () => {
      const exited = new Promise((done) => child.once('exit', done));
      child.stdin.end();
      await exited;
    },
  };
}
