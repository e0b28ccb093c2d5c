// Part `listing`: what a host gets from the built `guru-mcp stdio` before the first question, through
// the SDK's client: tools/list bytes (the JSON of the result as received, in both protocol eras) for
// all groups and for each group alone (GURU_TOOLS), with tokens estimated as bytes / 4; and
// resources/list entries on a fresh guru, then after GURU_BENCH_LISTING_ASKS asks. With
// GURU_BENCH_BASELINE (another checkout, built) its server is measured too; a build without tool
// groups lists all its tools, so its groups are that listing filtered to this build's groups.
import console from 'node:console';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { Buffer } from 'node:buffer';
import { join, resolve } from 'node:path';
import process from 'node:process';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { dist, positiveInt, repoRoot, table } from '../lib/common.js';

const asks = positiveInt(process.env.GURU_BENCH_LISTING_ASKS, 50);
const ERAS = ['2025-11-25', '2026-07-28'];

async function connect(cli, dataDir, revision, env = {}) {
  const client = new Client({ name: 'guru-bench', version: '0.0.0' }, revision === '2026-07-28' ? { versionNegotiation: { mode: { pin: revision } } } : {});
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [cli, 'stdio', '--data-dir', dataDir], env: { ...process.env, GURU_LOG_LEVEL: 'error', ...env }, stderr: 'ignore' }),
  );
  return client;
}

const bytesOf = (value) => Buffer.byteLength(JSON.stringify(value));

/** tools/list of `cli` per era: all groups, and each group (asked for, or filtered from all). */
async function toolLists(cli, groups) {
  const dataDir = mkdtempSync(join(tmpdir(), 'guru-bench-listing-'));
  const rows = [];
  try {
    for (const revision of ERAS) {
      const client = await connect(cli, dataDir, revision);
      const all = await client.listTools();
      await client.close();
      rows.push({ revision, group: 'all', tools: all.tools.length, bytes: bytesOf(all) });
      for (const [group, names] of Object.entries(groups)) {
        const grouped = await connect(cli, dataDir, revision, { GURU_TOOLS: group });
        let listed = await grouped.listTools();
        await grouped.close();
        // A build without groups ignores GURU_TOOLS.
        if (listed.tools.length === all.tools.length && names.length < all.tools.length) {
          listed = { ...listed, tools: listed.tools.filter((tool) => names.includes(tool.name)) };
        }
        rows.push({ revision, group, tools: listed.tools.length, bytes: bytesOf(listed) });
      }
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
  return rows;
}

/** resources/list entries on a guru with one text source, then after `asks` asks over MCP. */
async function resourcesAfterAsks(cli) {
  const dataDir = mkdtempSync(join(tmpdir(), 'guru-bench-listing-'));
  const client = await connect(cli, dataDir, '2025-11-25');
  try {
    await client.callTool({ name: 'create_guru', arguments: { slug: 'bench' } });
    await client.callTool({
      name: 'add_sources',
      arguments: { guru_slug: 'bench', wait: true, text_sources: [{ name: 'Guide', content: '# Install\n\nRun npm install -g frobnicator to install the frob command.' }] },
    });
    const before = (await client.listResources()).resources.length;
    for (let index = 1; index <= asks; index++) {
      const result = await client.callTool({ name: 'ask', arguments: { guru_slug: 'bench', question: `How do I install frob (${index})?`, evidence_tokens: 0 } });
      if (result.isError) throw new Error(`ask failed: ${JSON.stringify(result.content)}`);
    }
    const after = (await client.listResources()).resources.length;
    const templates = (await client.listResourceTemplates()).resourceTemplates.length;
    return { before, after, templates };
  } finally {
    await client.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export default {
  name: 'listing',
  async run() {
    const { TOOL_GROUPS } = await dist('mcp/tool-groups.js');
    const builds = [{ build: 'this build', cli: join(repoRoot, 'dist', 'bin', 'guru-mcp.js') }];
    if (process.env.GURU_BENCH_BASELINE) builds.unshift({ build: 'baseline', cli: join(resolve(process.env.GURU_BENCH_BASELINE), 'dist', 'bin', 'guru-mcp.js') });
    const results = [];
    for (const { build, cli } of builds) {
      results.push({ build, tools: await toolLists(cli, TOOL_GROUPS), resources: await resourcesAfterAsks(cli) });
    }
    return { asks, results };
  },
  print({ asks: count, results }) {
    console.log('\ntools/list as the SDK client receives it: bytes of its JSON, tokens estimated as bytes / 4');
    console.log(
      table(
        ['build', 'era', 'group', 'tools', 'bytes', '~tokens'],
        results.flatMap(({ build, tools }) => tools.map((row) => [build, row.revision, row.group, String(row.tools), String(row.bytes), String(Math.round(row.bytes / 4))])),
      ),
    );
    console.log(`\nresources/list entries on a new guru, and after ${count} asks`);
    console.log(table(['build', 'before', `after ${count} asks`, 'templates'], results.map(({ build, resources }) => [build, String(resources.before), String(resources.after), String(resources.templates)])));
  },
};
