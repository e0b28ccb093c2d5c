import { it } from 'vitest';
import { silentLogger } from '../../src/log.js';
import { connectClient, openTestBackend } from './support.js';
import { TOOL_GROUPS, TOOL_GROUP_NAMES } from '../../src/mcp/tool-groups.js';
it('measures', async () => {
  const test = await openTestBackend();
  const client = await connectClient({ backend: test.backend, logger: silentLogger }, (process.env.ERA ?? '2025-11-25') as '2025-11-25');
  const list = await client.listTools();
  const rows: string[] = [];
  let o = 0, i = 0, d = 0;
  for (const t of list.tools) {
    const a = JSON.stringify(t.outputSchema ?? {}).length, b = JSON.stringify(t.inputSchema).length;
    o += a; i += b; d += (t.description ?? '').length;
    rows.push(`${t.name} ${JSON.stringify(t).length} in ${b} out ${a} desc ${(t.description ?? '').length}`);
  }
  rows.push(`total ${Buffer.byteLength(JSON.stringify(list))} in ${i} out ${o} desc ${d}`);
  for (const g of TOOL_GROUP_NAMES) {
    const c = await connectClient({ backend: test.backend, logger: silentLogger, tools: [g] }, '2025-11-25');
    rows.push(`${g} ${Buffer.byteLength(JSON.stringify(await c.listTools()))} (${TOOL_GROUPS[g].length})`);
  }
  console.log(rows.join('\n'));
  if (process.env.DUMP) for (const t of list.tools) { const walk = (p: string, s: any) => { if (s && typeof s === "object") { if (typeof s.description === "string") console.log(t.name, p, s.description.length, s.description); for (const [k, v] of Object.entries(s)) if (k !== "description") walk(p + "." + k, v); } }; walk("", t.inputSchema); console.log(t.name, "TITLE", t.title, "DESC", t.description); }
  await test.close();
});
