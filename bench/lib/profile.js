// Where the time of a V8 CPU profile went, by what the code does.
import { readFileSync } from 'node:fs';

/**
 * Self time of a V8 CPU profile by what the code does. Native frames (SQLite calls, for one) and
 * Node's own modules count for the nearest caller that says more.
 */
export function profileBreakdown(file) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const parent = new Map();
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const categoryOfNode = new Map();
  const categoryOf = (id) => {
    if (categoryOfNode.has(id)) return categoryOfNode.get(id);
    let category;
    for (let at = id; at !== undefined && category === undefined; at = parent.get(at)) {
      category = classifyFrame(byId.get(at).callFrame);
    }
    category ??= 'other (Node internals, timers)';
    categoryOfNode.set(id, category);
    return category;
  };
  const totals = new Map();
  let total = 0;
  profile.samples.forEach((id, index) => {
    const delta = profile.timeDeltas[index] ?? 0;
    total += delta;
    const category = categoryOf(id);
    totals.set(category, (totals.get(category) ?? 0) + delta);
  });
  return [...totals]
    .map(([category, micros]) => ({ category, seconds: micros / 1e6, share: micros / total }))
    .sort((a, b) => b.seconds - a.seconds);
}

/** @returns {string | undefined} */
function classifyFrame({ functionName, url }) {
  if (functionName === '(idle)') return 'idle (waiting for I/O)';
  if (functionName === '(garbage collector)') return 'garbage collection';
  if (functionName === '(program)') return 'V8/native, unattributed';
  const rules = [
    [/node_modules\/(?:linkedom|htmlparser2|entities|domhandler|uhyphen|cssom|css-select|nth-check)\//, 'HTML parsing and DOM (linkedom)'],
    [/node_modules\/@mozilla\/readability\//, 'Readability'],
    [/dist\/engine\/ingest\/extract\/extraction-pool\.js/, 'handing pages to the extraction workers'],
    [/dist\/engine\/ingest\/extract\//, 'extraction, ours (html.js, markdown.js)'],
    // The workers run the bundle, where every library shares a few chunk files.
    [/dist\/bin\//, 'extraction in the worker (bundled: linkedom, Readability, ours)'],
    [/dist\/engine\/ingest\/chunker\.js/, 'chunking'],
    [/node_modules\/better-sqlite3\/|dist\/engine\/store\//, 'SQLite (store, FTS5)'],
    [/node_modules\/undici\/|dist\/net\/|node:(?:net|http|_http|internal\/stream|internal\/dns|dns)/, 'fetching (undici, sockets, decoding)'],
    [/dist\/engine\/ingest\/(?:processor|reading)\.js|dist\/engine\/ingest\/sources\//, 'job queue and readers'],
    [/dist\/engine\/search\/|dist\/engine\/answer\//, 'search and answers (quality checks)'],
    [/dist\/engine\/|dist\/core\/|dist\/compose\.js/, 'engine, other'],
    [/bench\//, 'bench itself'],
  ];
  for (const [pattern, category] of rules) if (pattern.test(url)) return category;
  return undefined;
}
