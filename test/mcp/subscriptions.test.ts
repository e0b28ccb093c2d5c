/** Subscribing to guru://{guru_slug}/data-sources: updates while subscribed, none after. */
import type { Client } from '@modelcontextprotocol/client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DataSource } from '../../src/core/schemas.js';
import { waitForSources } from '../../src/core/wait-for-sources.js';
import { silentLogger } from '../../src/log.js';
import { ERAS, connectClient, openTestBackend, subscribe } from './support.js';
import type { ProtocolRevision, TestBackend } from './support.js';

/** Short, so that the tests do not wait the production two seconds between looks. */
const POLL_MS = 25;
const FROB = 'guru://frob/data-sources';
const OTHER = 'guru://other/data-sources';

/** Every resources/updated notification, in order, and a way to await the next one for a URI. */
function watchUpdates(client: Client) {
  const seen: string[] = [];
  const waiting: { uri: string; resolve: () => void }[] = [];
  client.setNotificationHandler('notifications/resources/updated', (notification) => {
    const { uri } = notification.params;
    seen.push(uri);
    for (const waiter of waiting.filter((item) => item.uri === uri)) {
      waiting.splice(waiting.indexOf(waiter), 1);
      waiter.resolve();
    }
  });
  return {
    seen,
    next: (uri: string) => new Promise<void>((resolve) => waiting.push({ uri, resolve })),
  };
}

/** A backend with the gurus frob and other, and a client of `revision`, for each test of the calling describe. */
function withTwoGurus(revision: ProtocolRevision): () => { test: TestBackend; client: Client } {
  let test: TestBackend;
  let client: Client;
  beforeEach(async () => {
    test = await openTestBackend();
    await test.backend.admin!.createGuru({ slug: 'frob' });
    await test.backend.admin!.createGuru({ slug: 'other' });
    client = await connectClient({ backend: test.backend, logger: silentLogger, dataSourcePollMs: POLL_MS }, revision);
  });
  afterEach(async () => {
    await client.close();
    await test.close();
  });
  return () => ({ test, client });
}

describe.each(ERAS)('data-sources subscriptions (%s)', (era) => {
  const setup = withTwoGurus(era);
  let test: TestBackend;
  let client: Client;

  beforeEach(() => {
    ({ test, client } = setup());
  });

  const addText = async (guru: string, name: string) => {
    const [created] = await test.backend.assistant.createDataSources(guru, { text_sources: [{ name, content: `${name} is a note.` }] });
    return created!.id;
  };

  const statuses = async (uri: string) => {
    const { contents } = await client.readResource({ uri });
    const page = z.object({ count: z.number(), results: z.array(DataSource) }).parse(JSON.parse((contents[0] as { text: string }).text));
    return page.results.map((source) => source.status);
  };

  it('declares subscriptions', () => {
    expect(client.getServerCapabilities()?.resources).toMatchObject({ subscribe: true, listChanged: true });
  });

  it('notifies a subscriber as sources are added and processed, by any process, until it unsubscribes', async () => {
    const updates = watchUpdates(client);
    const frob = await subscribe(client, era, FROB);
    await subscribe(client, era, OTHER);

    // Added through the port, not through this connection: the watch sees the listing, whoever changed it.
    let update = updates.next(FROB);
    await addText('frob', 'Alpha');
    await update;
    // The first update may show the source still NOT_PROCESSED; another follows once it is processed.
    while (!(await statuses(FROB)).every((status) => status === 'SUCCESS')) {
      update = updates.next(FROB);
      await update;
    }
    expect(await statuses(FROB)).toEqual(['SUCCESS']);

    await frob.close();
    const unsubscribedAt = updates.seen.length;
    const beta = await addText('frob', 'Beta');
    await waitForSources(test.backend.assistant, 'frob', [beta]);
    // Two changes of the other guru, one look apart: a look at frob's sources falls between them.
    update = updates.next(OTHER);
    await addText('other', 'Gamma');
    await update;
    update = updates.next(OTHER);
    await addText('other', 'Delta');
    await update;
    expect(updates.seen.slice(unsubscribedAt)).not.toContain(FROB);
    expect(updates.seen.slice(unsubscribedAt)).toContain(OTHER);
  });
});

/** What only the 2025 era can say: a resources/subscribe that names a resource it cannot watch is refused (a listen is acknowledged first). */
describe('resources/subscribe refusals (2025-11-25)', () => {
  const setup = withTwoGurus('2025-11-25');
  let test: TestBackend;
  let client: Client;

  beforeEach(() => {
    ({ test, client } = setup());
  });

  it('refuses other resources and gurus it cannot find', async () => {
    await expect(client.subscribeResource({ uri: 'guru://frob/sessions' })).rejects.toThrow(
      /Only guru:\/\/\{guru_slug\}\/data-sources can be subscribed to, not guru:\/\/frob\/sessions/,
    );
    await expect(client.subscribeResource({ uri: 'guru://nope/data-sources' })).rejects.toThrow(/Resource guru:\/\/nope\/data-sources not found/);
    // Unsubscribing from something never subscribed to is harmless.
    await expect(client.unsubscribeResource({ uri: OTHER })).resolves.toEqual({});
  });

  it('keeps a connection limited to one guru inside it', async () => {
    const scoped = await connectClient({ backend: test.backend, logger: silentLogger, scope: 'frob', dataSourcePollMs: POLL_MS }, '2025-11-25');
    try {
      await expect(scoped.subscribeResource({ uri: OTHER })).rejects.toThrow(/Resource guru:\/\/other\/data-sources not found/);
      await expect(scoped.subscribeResource({ uri: FROB })).resolves.toEqual({});
    } finally {
      await scoped.close();
    }
  });
});
