// Anchor text: the words other pages of the same knowledge base use when they link to a page. Read
// from the stored Markdown of every web page source (links are absolute, to the served origin), and
// searchable in memory with the same FTS5 tokenizer as the chunks.
import Database from 'better-sqlite3';
import { URL } from 'node:url';

const LINK = /(?<!!)\[((?:[^[\]]|\[[^\]]*\])*)\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g;
const TOKENIZER = 'porter unicode61 remove_diacritics 2';

/** Link text as a reader reads it: Markdown escapes, emphasis, code ticks and heading marks gone. */
export const readable = (text) =>
  text
    .replace(/\\([\\`*_{}[\]()#+\-.!<>|~])/g, '$1')
    .replace(/[*`]+/g, '')
    .replace(/^\s*#+\s*/gm, '')
    .replace(/\s+/g, ' ')
    .trim();

const locate = (href) => {
  try {
    const url = new URL(href);
    return { origin: url.origin, page: decodeURIComponent(url.pathname).replace(/^\/+/, ''), fragment: decodeURIComponent(url.hash.slice(1)) };
  } catch {
    return undefined;
  }
};

/** A link whose text is its address (a URL or a file name) says nothing about the page. */
const bare = (text, page) => {
  const lower = text.toLowerCase();
  return /^(https?:\/\/|www\.)/.test(lower) || lower === page.toLowerCase() || lower === page.split('/').at(-1)?.toLowerCase() || /^[\w./-]+\.(html?|txt|pdf|md)$/i.test(text);
};

/**
 * Per target page, its anchor texts from other pages: text → the linking pages. A (text, target)
 * pair found on more than `navShare` of the pages is navigation (menus, headers) and is dropped.
 */
export function collectAnchors(db, { navShare = 0.05 } = {}) {
  const sources = db.prepare("SELECT url, content FROM data_sources WHERE status = 'SUCCESS' AND url IS NOT NULL AND content IS NOT NULL").all();
  const pages = new Map(sources.map((s) => [locate(s.url)?.page, locate(s.url)?.origin]));
  /** "text\u0000target" → { text, target, fragments, from: Set<page> } */
  const pairs = new Map();
  let links = 0;
  for (const source of sources) {
    const from = locate(source.url);
    if (!from) continue;
    for (const match of source.content.matchAll(LINK)) {
      const to = locate(match[2]);
      if (!to || to.origin !== from.origin || !pages.has(to.page) || to.page === from.page) continue;
      const text = readable(match[1]);
      if (text === '' || text.includes('](') || bare(text, to.page) || !/[\p{L}]/u.test(text)) continue;
      links += 1;
      const key = `${text.toLowerCase()}\u0000${to.page}`;
      const pair = pairs.get(key) ?? { text, target: to.page, from: new Set(), fragments: new Set() };
      pair.from.add(from.page);
      if (to.fragment) pair.fragments.add(to.fragment);
      pairs.set(key, pair);
    }
  }
  const limit = navShare * sources.length;
  const byPage = new Map();
  let dropped = 0;
  for (const pair of pairs.values()) {
    if (pair.from.size > limit) {
      dropped += 1;
      continue;
    }
    const anchors = byPage.get(pair.target) ?? [];
    anchors.push(pair);
    byPage.set(pair.target, anchors);
  }
  return { byPage, stats: { pages: sources.length, links, pairs: pairs.size, navPairsDropped: dropped, targets: byPage.size } };
}

/**
 * In memory: `anchors` holds one row per (target page, anchor text) with the number of pages that
 * link with it; `docs` one row per target page, each anchor text repeated once per linking page
 * (`repeat: 'pages'`) or once (`repeat: 'distinct'`).
 */
export function anchorIndex({ byPage }, { repeat = 'pages' } = {}) {
  const db = new Database(':memory:');
  db.exec(`CREATE VIRTUAL TABLE anchors USING fts5(page UNINDEXED, n UNINDEXED, text, tokenize = '${TOKENIZER}');
           CREATE VIRTUAL TABLE docs USING fts5(page UNINDEXED, text, tokenize = '${TOKENIZER}');`);
  const addAnchor = db.prepare('INSERT INTO anchors (page, n, text) VALUES (?, ?, ?)');
  const addDoc = db.prepare('INSERT INTO docs (page, text) VALUES (?, ?)');
  const linking = new Map();
  db.transaction(() => {
    for (const [page, anchors] of byPage) {
      const all = new Set();
      for (const a of anchors) {
        addAnchor.run(page, a.from.size, a.text);
        for (const p of a.from) all.add(p);
      }
      linking.set(page, all.size);
      addDoc.run(page, anchors.flatMap((a) => (repeat === 'pages' ? [...a.from].map(() => a.text) : [a.text])).join(' \n '));
    }
  })();
  const search = db.prepare('SELECT page, -bm25(docs) AS score FROM docs WHERE docs MATCH ? ORDER BY score DESC LIMIT ?');
  const rows = db.prepare(
    `SELECT page, n, text, highlight(anchors, 2, char(0xE000), char(0xE001)) AS marked FROM anchors
     WHERE anchors MATCH ? AND page IN (SELECT value FROM json_each(?))`,
  );
  return {
    /** Pages whose anchor texts match the query, best first (BM25 over each page's anchor document). */
    pages: (match, limit) => search.all(match, limit),
    /** The matching anchor rows of these pages, the question's words marked. */
    matching: (match, pages) => rows.all(match, JSON.stringify(pages)),
    /** How many other pages link to the page (after the navigation filter). */
    linking: (page) => linking.get(page) ?? 0,
  };
}
