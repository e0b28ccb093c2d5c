// The MCP conformance suite's generic server scenarios against the built `guru-mcp serve`
// (`npm run conformance`; CI runs it next to the tests). The suite speaks HTTP only and needs
// Node 22, which npx brings as the `node` package. The scenarios left out call fixture tools and
// resources (`test_*`, `test://…`) a product server does not have, or features it does not offer
// (logging, prompts, subscriptions to other resources than guru://{guru_slug}/data-sources).
import { execFile, spawn } from 'node:child_process';
import console from 'node:console';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const CLI = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'dist', 'bin', 'guru-mcp.js');
const CONFORMANCE = ['-y', '-p', 'node@22', '-p', '@modelcontextprotocol/conformance@0.1.16', '-c'];
const SCENARIOS = ['server-initialize', 'ping', 'tools-list', 'resources-list', 'server-sse-multiple-streams', 'dns-rebinding-protection'];
const run = promisify(execFile);

/** Starts `serve` on a free loopback port; resolves with the child and its /mcp URL once it says where it listens. */
function serve(dataDir) {
  const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--data-dir', dataDir], { stdio: ['ignore', 'ignore', 'pipe'] });
  return new Promise((resolve, reject) => {
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk.toString();
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr);
      if (match) resolve({ child, url: `${match[1]}/mcp` });
    });
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}:\n${stderr}`)));
  });
}

const dataDir = mkdtempSync(join(tmpdir(), 'guru-mcp-conformance-'));
let failed = 0;
try {
  await run(process.execPath, [CLI, 'guru', 'create', 'frob', '--json', '--data-dir', dataDir]);
  const { child, url } = await serve(dataDir);
  try {
    for (const scenario of SCENARIOS) {
      const command = `conformance server --url ${url} --scenario ${scenario} -o ${join(dataDir, 'results')}`;
      try {
        const { stdout } = await run('npx', [...CONFORMANCE, command], { timeout: 120_000 });
        console.log(`${scenario}: ${/Passed: .*/.exec(stdout)?.[0] ?? 'passed'}`);
      } catch (error) {
        failed += 1;
        console.log(`${scenario}: FAILED\n${error.stdout ?? ''}${error.stderr ?? error.message}`);
      }
    }
  } finally {
    child.kill('SIGTERM');
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
if (failed > 0) {
  console.log(`${failed} of ${SCENARIOS.length} conformance scenarios failed`);
  process.exitCode = 1;
}
