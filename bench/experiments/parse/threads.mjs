// Ingests the manual in process (pages served by a child process) and prints each thread's CPU seconds (user + system, user, system).
import console from 'node:console';
import process from 'node:process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { openLocalBackend, waitUntilProcessed } from '../../lib/engine.js';
import { manualPages, serveFolderInChild, manualDir } from '../../lib/manual-site.js';
const threads = () => Object.fromEntries(readdirSync('/proc/self/task').map((t) => {
  const stat = readFileSync(`/proc/self/task/${t}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const name = readFileSync(`/proc/self/task/${t}/comm`, 'utf8').trim();
  return [`${t} ${name}`, [Number(fields[11]) / 100, Number(fields[12]) / 100]];
}));
const site = await serveFolderInChild(manualDir);
const dataDir = mkdtempSync(join(tmpdir(), 'threads-'));
const backend = await openLocalBackend(dataDir);
await backend.admin.createGuru({ slug: 'pg', name: 'pg' });
const urls = manualPages().map((n) => `${site.origin}/${n}`);
const before = threads(); const t = performance.now(); const cpu = process.cpuUsage();
for (let i = 0; i < urls.length; i += 100) await backend.assistant.createDataSources('pg', { website_urls: urls.slice(i, i + 100) });
await waitUntilProcessed(backend.assistant, 'pg');
const wall = performance.now() - t; const u = process.cpuUsage(cpu);
const after = threads();
console.log('wall', (wall / 1000).toFixed(2), 's; process cpu', ((u.user + u.system) / 1e6).toFixed(2));
for (const [k, [user, system]] of Object.entries(after)) {
  const [userBefore, systemBefore] = before[k] ?? [0, 0];
  const u = user - userBefore; const s = system - systemBefore;
  if (u + s > 0.05) console.log(k.padEnd(30), (u + s).toFixed(2), u.toFixed(2), s.toFixed(2));
}
// Bytes this process handed to write(): the database, its write-ahead log, and any temporary files.
console.log('written', (Number(/wchar: (\d+)/.exec(readFileSync('/proc/self/io', 'utf8'))[1]) / 1e6).toFixed(1), 'MB');
await backend.close(); await site.close?.(); rmSync(dataDir, { recursive: true, force: true }); process.exit(0);
