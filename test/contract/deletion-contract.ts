/**
 * Deleting data sources, held against every Assistant implementation: what goes (the listing,
 * the index, answers' citations, the bytes in the data directory), what is refused, and what
 * is never touched (another guru's sources, ids not in the guru).
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { Assistant } from '../../src/core/assistant.js';
import { startLoopbackServer } from '../support/loopback-server.js';
import type { ContractHarness, OpenHarness } from './harness.js';

const FIRST_PAGE = { page: 1, page_size: 1000 } as const;
const DELETED = { msg: 'Data sources deleted successfully' };
/** A word no other text holds, and without vowels, so that stemming leaves it as it is (the index keeps stems): its bytes are looked for in the files. */
const MARKER = 'zqxjvkwpl';

export function deletionContract(open: OpenHarness): void {
  let harness: ContractHarness;
  let assistant: Assistant;

  beforeEach(async () => {
    harness = await open();
    assistant = harness.assistant;
    await harness.createGuru('frob', 'Frobnicator');
  });

  afterEach(async () => {
    await harness.close();
  });

  const titles = async (guru: string) => (await assistant.listDataSources(guru, FIRST_PAGE)).results.map((source) => source.title);

  it('deletes sources by id: they leave the listing, the search and the answers', async () => {
    const [zorblax, quux] = await assistant.createDataSources('frob', {
      text_sources: [
        { name: 'Zorblax', content: 'The zorblax restarts every night at midnight.' },
        { name: 'Quux', content: 'The quuxinator restarts every hour.' },
      ],
    });
    await harness.whenIdle();
    await expect(assistant.deleteDataSources('frob', { ids: [zorblax!.id] })).resolves.toEqual(DELETED);
    expect(await titles('frob')).toEqual(['Quux']);
    expect((await assistant.semanticSearch('frob', { question: 'zorblax' })).total_sources).toBe(0);
    const answer = await assistant.ask('frob', { question: 'When does the zorblax restart?', fetch_existing: false });
    expect(answer.references.map((reference) => reference.title)).not.toContain('Zorblax');
    expect(answer.content).not.toContain('midnight');
    expect((await assistant.semanticSearch('frob', { question: 'quuxinator' })).total_sources).toBe(1);
    expect(quux).toBeDefined();
  });

  it('passes over ids that are not sources of the guru, and deleting twice is harmless', async () => {
    const [notes] = await assistant.createDataSources('frob', { text_sources: [{ name: 'Notes', content: 'The zorblax runs nightly.' }] });
    await harness.whenIdle();
    await expect(assistant.deleteDataSources('frob', { ids: [notes!.id + 1000] })).resolves.toEqual(DELETED);
    expect(await titles('frob')).toEqual(['Notes']);
    await expect(assistant.deleteDataSources('frob', { ids: [notes!.id, notes!.id] })).resolves.toEqual(DELETED);
    await expect(assistant.deleteDataSources('frob', { ids: [notes!.id] })).resolves.toEqual(DELETED);
    expect(await titles('frob')).toEqual([]);
  });

  it("never deletes another guru's sources", async () => {
    await harness.createGuru('other');
    const [theirs] = await assistant.createDataSources('other', { text_sources: [{ name: 'Theirs', content: 'The zorblax belongs to the other guru.' }] });
    await harness.whenIdle();
    await expect(assistant.deleteDataSources('frob', { ids: [theirs!.id] })).resolves.toEqual(DELETED);
    expect(await titles('other')).toEqual(['Theirs']);
    expect((await assistant.semanticSearch('other', { question: 'zorblax' })).total_sources).toBe(1);
  });

  it('refuses a malformed request with the spec message, naming the problem and deleting nothing', async () => {
    await assistant.createDataSources('frob', { text_sources: [{ name: 'Notes', content: 'The zorblax runs nightly.' }] });
    await harness.whenIdle();
    const refusals: Array<[unknown, string]> = [
      [{ ids: [] }, 'ids must have at least 1 item'],
      [{ ids: Array.from({ length: 10_001 }, (_, i) => i + 1) }, 'ids must have at most 10000 items'],
      [{ ids: ['1'] }, 'ids[0]'],
      [{ ids: [0] }, 'ids[0]'],
      [{ ids: [1.5] }, 'ids[0]'],
      [{}, 'ids'],
    ];
    for (const [request, problem] of refusals) {
      const call = assistant.deleteDataSources('frob', request as { ids: number[] });
      await expect(call).rejects.toMatchObject({ status: 400, field: 'msg', message: expect.stringMatching(/^Invalid request parameters/) });
      await expect(call).rejects.toThrow(problem);
    }
    expect(await titles('frob')).toEqual(['Notes']);
  });

  it("answers for an unknown guru with the operation's error", async () => {
    await expect(assistant.deleteDataSources('nope', { ids: [1] })).rejects.toMatchObject({ status: 404, message: 'Guru type nope not found' });
  });

  it("leaves no byte of a deleted source's text in the data directory's files", async () => {
    // Sources added one request at a time: the full-text index then holds several segments, and
    // a deleted source's words stay in theirs unless the deletion takes them out.
    const add = async (name: string, content: string) => {
      const [created] = await assistant.createDataSources('frob', { text_sources: [{ name, content }] });
      await harness.whenIdle();
      return created!;
    };
    for (let i = 0; i < 3; i += 1) await add(`Before ${i}`, `The zorblax runs nightly, run ${i}.`);
    const secret = await add('Secret', `# Launch codes\n\nThe ${MARKER} opens the vault.\n\nSee [the ${MARKER} page](https://example.com/${MARKER}).`);
    for (let i = 0; i < 3; i += 1) await add(`After ${i}`, `The quuxinator runs hourly, run ${i}.`);
    expect(await harness.filesHolding(MARKER)).not.toEqual([]);
    await assistant.deleteDataSources('frob', { ids: [secret.id] });
    expect(await harness.filesHolding(MARKER)).toEqual([]);
    expect(await titles('frob')).not.toContain('Secret');
  });

  it('never gives a deleted source\'s id to a new source', async () => {
    const [first, second] = await assistant.createDataSources('frob', {
      text_sources: [
        { name: 'A', content: 'alpha' },
        { name: 'B', content: 'beta' },
      ],
    });
    await assistant.deleteDataSources('frob', { ids: [second!.id] });
    const [third] = await assistant.createDataSources('frob', { text_sources: [{ name: 'C', content: 'gamma' }] });
    expect(third!.id).toBeGreaterThan(second!.id);
    expect(first!.id).toBeLessThan(second!.id);
  });

  it('keeps nothing of a web page deleted while it was being read', async () => {
    let arrived!: () => void;
    const requested = new Promise<void>((resolve) => (arrived = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const site = await startLoopbackServer({
      '/slow': async (_request, response) => {
        arrived();
        await released;
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        response.end(`<html><head><title>Slow</title></head><body><main><h1>Slow</h1><p>The ${MARKER} of the zorblax came back.</p></main></body></html>`);
      },
    });
    try {
      const [page] = await assistant.createDataSources('frob', { website_urls: [site.url('/slow')] });
      await requested;
      await expect(assistant.deleteDataSources('frob', { ids: [page!.id] })).resolves.toEqual(DELETED);
      release();
      await harness.whenIdle();
      expect(await titles('frob')).toEqual([]);
      expect(await harness.filesHolding(MARKER)).toEqual([]);
      // Searched for by another of its words: the search log keeps the question asked.
      expect((await assistant.semanticSearch('frob', { question: 'zorblax' })).total_sources).toBe(0);
    } finally {
      await site.close();
    }
  });
}
