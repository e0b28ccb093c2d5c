/**
 * Weighing candidate passages and judging the best one, on passages marked the
 * way the search marks them (matched words between MARK_OPEN and MARK_CLOSE).
 */
import { describe, expect, it } from 'vitest';
import { keyTerms, weighEvidence, type Evidence } from '../../../src/engine/answer/evidence.js';
import { judge, trustScore, type TrustSignals } from '../../../src/engine/answer/trust.js';
import { MARK_CLOSE, MARK_OPEN, type ChunkHit, type MarkedChunk } from '../../../src/engine/search/retriever.js';

/** Marks every whole word of `text` that starts with one of the stems, as the search does after stemming. */
const mark = (text: string, stems: readonly string[]) =>
  text.replace(/[\p{L}\p{N}]+/gu, (word) => (stems.some((stem) => word.toLowerCase().startsWith(stem)) ? `${MARK_OPEN}${word}${MARK_CLOSE}` : word));

let nextId = 1;
function candidate(sourceId: number, title: string, headings: string, body: string, score = 1): ChunkHit {
  return { chunkId: nextId++, sourceId, sourceType: 'TEXT', url: null, title, headings, body, labels: '[]', position: 0, score };
}

function weigh(
  question: string[],
  frequencies: Record<string, number>,
  chunkCount: number,
  hits: ChunkHit[],
  aliases: ReadonlyMap<string, string> = new Map(),
): Evidence[] {
  const key = keyTerms(question, chunkCount, (term) => frequencies[term] ?? 0);
  const words = [...question, ...aliases.keys()];
  const marked = new Map<number, MarkedChunk>(
    hits.map((hit) => [hit.chunkId, { title: mark(hit.title, words), headings: mark(hit.headings, words), body: mark(hit.body, words) }]),
  );
  return weighEvidence(hits, key, { marked, related: [], aliases });
}

describe('keyTerms', () => {
  it('weighs a word the knowledge never uses the most, and a number half', () => {
    const key = keyTerms(['world', 'cup', '2018'], 1000, (term) => ({ world: 40, '2018': 40 })[term] ?? 0);
    expect(key.weights.get('cup')).toBeGreaterThan(key.weights.get('world') ?? 0);
    expect(key.weights.get('2018')).toBeCloseTo((key.weights.get('world') ?? 0) / 2);
  });


  it('rates how foreign the question\'s words are to the knowledge: low for words it uses throughout, high for words it never uses', () => {
    const frequencies: Record<string, number> = { server: 1900, request: 900, certificate: 300, scarf: 1 };
    const rarity = (terms: string[]) => keyTerms(terms, 2000, (term) => frequencies[term] ?? 0).rarity;
    expect(rarity(['server', 'request', 'certificate'])).toBeLessThan(0.2);
    expect(rarity(['knit', 'scarf'])).toBeGreaterThan(0.9);
    expect(rarity([])).toBeGreaterThan(0.9);
    // In two chunks, a word in one of them is as rare as can be, and says nothing of the question.
    expect(keyTerms(['npm', 'frob'], 2, () => 1).rarity).toBeCloseTo(0.55, 1);
  });

  it('in a knowledge base of a few chunks, weighs a missing word about as much as its rarest present one', () => {
    const key = keyTerms(['npm', 'command', 'frob'], 2, (term) => ({ npm: 1, frob: 1 })[term] ?? 0);
    expect(key.weights.get('command')).toBeLessThan((key.weights.get('npm') ?? 0) * 1.1);
    expect(key.unseen).toEqual(new Set(['command']));
  });
});

describe('weighEvidence', () => {
  it('ranks a page higher when other pages link to it with the question\'s words, like a title that names them', () => {
    const elsewhere = candidate(1, 'Configuration', 'Files', 'Settings are read from frob.toml; restore a backup of it to undo a change.', 1);
    const reset = candidate(2, 'frob reset', '', 'Run frob reset --hard to go back to the settings frob shipped with.', 0.95);
    const question = ['restore', 'factory', 'settings'];
    const frequencies = { restore: 5, factory: 3, settings: 40 };
    expect(weigh(question, frequencies, 500, [elsewhere, reset])[0]?.hit.chunkId).toBe(elsewhere.chunkId);

    const key = keyTerms(question, 500, (term) => frequencies[term as keyof typeof frequencies] ?? 0);
    const marked = new Map<number, MarkedChunk>([elsewhere, reset].map((hit) => [hit.chunkId, { title: hit.title, headings: hit.headings, body: mark(hit.body, question) }]));
    const anchors = new Map([[2, [mark('restore factory settings', question), mark('factory reset', question)]]]);
    const [best] = weighEvidence([elsewhere, reset], key, { marked, related: [], anchors });
    expect(best?.hit.chunkId).toBe(reset.chunkId);
    expect(best?.anchorCoverage).toBe(1);
    // What the page holds is what it covers: anchor text ranks a page, it does not answer for it.
    expect(best?.coverage).toBeLessThan(1);
  });

  it('ranks the passage under a heading that names the question above one that merely mentions its words', () => {
    const mention = candidate(1, 'Release notes', '2023-01-02', 'Fixed a crash when a vacuum ran while an index was built.', 2);
    const about = candidate(2, 'Maintenance', 'Vacuum an index', 'Run VACUUM to rebuild the index and reclaim space.', 1.5);
    const [best] = weigh(['vacuum', 'index'], { vacuum: 5, index: 20 }, 500, [mention, about]);
    expect(best?.hit.chunkId).toBe(about.chunkId);
    expect(best?.headingCoverage).toBe(1);
  });

  it('counts words standing together as in the question', () => {
    const hits = [candidate(1, 'T', '', 'The foreign key constraint is checked.'), candidate(1, 'T', '', 'A key is foreign to no table that we constrain.')];
    const evidence = weigh(['foreign', 'key', 'constraint'], { foreign: 5, key: 50, constraint: 30 }, 500, hits);
    const byId = new Map(evidence.map((item) => [item.hit.chunkId, item]));
    expect(byId.get(hits[0]!.chunkId)?.proximity).toBe(1);
    expect(byId.get(hits[1]!.chunkId)?.proximity).toBeLessThan(1);
  });
});

describe('weighEvidence with synonyms', () => {
  const aliases = new Map([['drop', 'remove']]);
  const frequencies = { remove: 10, column: 10 };

  it('counts a synonym for its question word, at half weight in the body', () => {
    const bySynonym = candidate(1, 'T', '', 'Use DROP on a column.');
    const [item] = weigh(['remove', 'column'], frequencies, 500, [bySynonym], aliases);
    expect(item?.missing).toEqual([]);
    expect(item?.coverage).toBeCloseTo(0.75);
  });

  it('ranks a passage holding the question word above one holding only its synonym', () => {
    const bySynonym = candidate(1, 'T', '', 'Use DROP on a column.');
    const direct = candidate(2, 'T', '', 'Remove a column with this.');
    const [best] = weigh(['remove', 'column'], frequencies, 500, [bySynonym, direct], aliases);
    expect(best?.hit.chunkId).toBe(direct.chunkId);
  });

  it('counts a synonym in the heading fully: the section is about it', () => {
    const section = candidate(1, 'T', 'Drop column', 'Use it on a column.');
    const [item] = weigh(['remove', 'column'], frequencies, 500, [section], aliases);
    expect(item?.coverage).toBe(1);
  });
});

describe('judge', () => {
  const decided = (question: string[], frequencies: Record<string, number>, hits: ChunkHit[]) =>
    judge(weigh(question, frequencies, 2000, hits), keyTerms(question, 2000, (term) => frequencies[term] ?? 0));

  it('declines a question whose only match is an incidental word', () => {
    // "Who won the 2018 World Cup?" against notes that mention 2018 and the world.
    const verdict = decided(['won', '2018', 'world', 'cup'], { '2018': 150, world: 50 }, [
      candidate(1, 'Release 3.25', 'Changes', 'Released 2018-09-15. Fixes for the most widely used database in the world.'),
    ]);
    expect(verdict).toEqual({ kind: 'decline' });
  });

  it('answers only in part when a word of the question is found in no candidate, naming it', () => {
    const verdict = decided(['install', 'frobnicator', 'windows'], { install: 30, frobnicator: 60, windows: 3 }, [
      candidate(1, 'Install guide', 'Installing Frobnicator', 'Install frobnicator with npm install -g frobnicator.'),
    ]);
    expect(verdict).toEqual({ kind: 'partial', gap: ['windows'] });
  });

  it('answers in full when the passages of one page hold the question words between them', () => {
    // The best passage lacks "windows"; the next section of the same page holds it.
    const verdict = decided(['install', 'frobnicator', 'windows'], { install: 30, frobnicator: 60, windows: 3 }, [
      candidate(1, 'Install guide', 'Installing Frobnicator', 'Install frobnicator with npm install -g frobnicator.', 2),
      candidate(1, 'Install guide', 'Other systems', 'On Windows, run the installer as an administrator.', 1),
    ]);
    expect(verdict).toEqual({ kind: 'answer', strong: false });
  });

  it('answers when no one passage holds enough of the question but a page about it does', () => {
    // "How do I send a large CSV to the browser without keeping it in memory?"
    const question = ['send', 'large', 'csv', 'browser', 'memory'];
    const frequencies = { send: 40, large: 30, csv: 3, browser: 12, memory: 20 };
    const page = (headings: string, body: string) => candidate(4, 'Streaming contents', headings, body);
    const spread = [page('Basic usage', 'This view generates CSV data for the browser.'), page('Large responses', 'Send large data without holding it in memory.')];
    expect(decided(question, frequencies, spread).kind).not.toBe('decline');
    // The same words over pages about other things, none holding half of them, are declined.
    const scattered = [
      candidate(5, 'Formats', 'Export', 'Export CSV files.'),
      candidate(6, 'Clients', 'Agents', 'Any browser works.'),
      candidate(7, 'Tuning', 'Caches', 'The cache uses memory.'),
    ];
    expect(decided(question, frequencies, scattered)).toEqual({ kind: 'decline' });
  });

  it('answers a question asked in words the knowledge uses throughout, though no page holds half of them', () => {
    // "How do I spread visitors across identical app servers?" asked of a web server's manual, whose
    // page about it says "load balancing": every word is one it uses, none on that page.
    const question = ['spread', 'visitors', 'identical', 'app', 'servers'];
    const frequencies = { spread: 30, visitors: 90, identical: 60, app: 200, servers: 1800 };
    const scattered = [
      candidate(5, 'Core', 'Listen', 'Servers accept visitors on each port.'),
      candidate(6, 'Rewriting', 'Examples', 'An app may spread its files.'),
      candidate(7, 'Caching', 'Keys', 'Identical requests share an entry.'),
    ];
    const verdict = decided(question, frequencies, scattered);
    expect(verdict.kind).not.toBe('decline');
    expect(verdict).not.toEqual({ kind: 'answer', strong: true });
  });

  it('declines a question made mostly of words the knowledge never or barely uses, though one page holds most of them', () => {
    // "Which songs made the jazz guitarist Django Reinhardt famous?" asked of Django's manual, whose
    // list of contributors' names mentions him once.
    const question = ['songs', 'jazz', 'guitarist', 'reinhardt', 'famous'];
    const frequencies = { songs: 1, jazz: 2, guitarist: 2, reinhardt: 2 };
    const verdict = decided(question, frequencies, [
      candidate(9, 'Django Reinhardt', 'The name', 'Named after the jazz guitarist Django Reinhardt, whose songs we love.'),
    ]);
    expect(verdict).toEqual({ kind: 'decline' });
  });

  it('declines when the heaviest word is one the knowledge never uses and the rest is thin', () => {
    // "How do I run frobnicator on kubernetes?": the knowledge has frobnicator everywhere, kubernetes nowhere.
    const verdict = decided(['run', 'frobnicator', 'kubernetes'], { run: 40, frobnicator: 1500 }, [
      candidate(1, 'Install guide', 'Installing Frobnicator', 'Run the installer to set up frobnicator.'),
    ]);
    expect(verdict).toEqual({ kind: 'decline' });
  });

  it('calls a passage strong evidence only when every sign of an answer is there', () => {
    const page = (body: string) => candidate(7, 'Indexes', 'Partial indexes', body);
    const strong = decided(['partial', 'index'], { partial: 20, index: 300 }, [
      page('A partial index is an index over a subset of the rows.'),
      page('Create a partial index with a WHERE clause.'),
      page('The partial index is used when the query implies its WHERE clause.'),
    ]);
    expect(strong).toEqual({ kind: 'answer', strong: true });

    const alone = decided(['partial', 'index'], { partial: 20, index: 300 }, [candidate(8, 'Notes', 'Misc', 'An index may be partial.')]);
    expect(alone).toEqual({ kind: 'answer', strong: false });
  });
});

describe('trustScore', () => {
  /** A passage from the page about the question, its words under its title, quoted in full. */
  const about: TrustSignals = {
    coverage: 1,
    titleCoverage: 1,
    headingCoverage: 1,
    anchorCoverage: 1,
    proximity: 1,
    lexical: 1,
    support: 2,
    runnerUp: 0.5,
    concentration: 0.3,
    quoteWorth: 1,
    questionWords: 3,
  };
  /** The same words met in passing on a page about something else, which holds them in passage after passage. */
  const inPassing: TrustSignals = { ...about, titleCoverage: 0, headingCoverage: 0, anchorCoverage: 0, lexical: 0.6, concentration: 1, quoteWorth: 0.4 };
  const answer = { kind: 'answer', strong: false } as const;
  const strong = { kind: 'answer', strong: true } as const;

  it('trusts the page about the question more than words met in passing on a catch-all page', () => {
    expect(trustScore(about, strong)).toBeGreaterThan(trustScore(inPassing, strong) + 30);
  });

  it('says "rely on me" (70 or more) only with strong evidence', () => {
    expect(trustScore(about, strong)).toBeGreaterThanOrEqual(70);
    expect(trustScore(about, answer)).toBe(69);
  });

  it('keeps a partial answer below 50 and every answer between 1 and 90', () => {
    expect(trustScore(about, { kind: 'partial', gap: ['windows'] })).toBe(49);
    expect(trustScore({ ...about, questionWords: 40 }, strong)).toBe(90);
    expect(trustScore({ ...inPassing, lexical: 0, proximity: 0, runnerUp: 1, quoteWorth: 0, questionWords: 0 }, strong)).toBe(1);
  });
});
