/**
 * Extractive answers end to end on the embedded engine: real documents
 * chunked and indexed in SQLite, questions asked through the Assistant port.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { onEachStore, type EngineDatabase, type StoreUnderTest } from '../../support/engine-stores.js';
import { wordCount } from '../../../src/engine/answer/markdown.js';
import { LocalEngine } from '../../../src/engine/local-engine.js';

const filler = (topic: string, n: number) =>
  Array.from({ length: n }, (_, i) => `Paragraph ${i + 1} on ${topic}: the planner keeps statistics per table and per column, and the executor reads them when it costs a plan.`).join('\n\n');

const columns = Array.from({ length: 16 }, (_, i) => `  -- column ${i + 1} of the sales table is covered too`).join('\n');

/** A section cut into two chunks right after the sentence that introduces its example. */
const INDEXES = `# Indexes

## Building indexes

${filler('indexes', 7)}

Normally, building an index locks out writes to the table until it is done. To build an index without locking out writes to the table:

\`\`\`sql
CREATE INDEX CONCURRENTLY sales_quantity_index ON sales_table (quantity);
${columns}
\`\`\`

The build then takes longer, as it scans the table twice.
`;

const RELEASES = `# Release notes

## Release 3.25.0 (2018-09-15)

Timestamps such as 2018-09-15 10:00 are now parsed in every time zone of the world.

## Release 3.26.0 (2018-12-01)

Faster window functions. Sorting by an expression in the world of large tables uses less memory.
`;

/** A page whose HTML conversion indented the closing fence. */
const SERVER = `# Server

## Listening port

To change the port the server listens on, set it in the configuration file:

\`\`\`toml
[server]
port = 8080
      \`\`\`

The port must be free when the server starts.
`;

const COMPILE = `# Compiling

## Compiler flags

Frobnicator compiles its native parts with the flags in CFLAGS, for example -O2.
`;

/** A page that says "concatenate" where users say "glue" or "join". */
const STRINGS = `# String operators

## Concatenation

The || operator concatenates two values into one: 'data' || 'base' gives 'database'.
`;

/** A page whose overview names its topic most often, while a later section shows how to turn it on. */
const SHADOW = `# Shadow paging

## Overview

Shadow paging keeps a shadow copy of each page of the database that a transaction changes. With shadow paging, the shadow pages are written first, and the database moves to them at commit. Shadow paging needs no undo log: a crash leaves the old pages of the database as they were.

## How shadow pages are written

Each shadow page goes to a free place in the file. Shadow paging then updates the page table in one write.

## Activating it

A database connection starts in rollback mode. To convert it, use the following setting:

\`\`\`
SET journal = 'shadow';
\`\`\`

The setting returns the new mode.
`;

/** A page whose introduction says what a thing is and whose next section, naming few of the question's words, shows how to declare it. */
const DERIVED = `# Derived fields

## Introduction

Derived fields hold a value that is always computed from other fields of the same row. A derived value can be read but never written: it changes when the fields it is computed from change.

## Syntax

Declare one with a DERIVED FROM clause. For example:

\`\`\`
CREATE TABLE prices(net INT, tax INT, gross INT DERIVED FROM (net + tax));
\`\`\`

The clause takes any expression over the row.
`;

/** Asks a guru holding these texts, in an engine opened before each test and removed after it. */
function askingGuruOf(store: StoreUnderTest, texts: readonly { name: string; content: string }[]): (question: string) => ReturnType<LocalEngine['ask']> {
  let dir: string;
  let database: EngineDatabase;
  let engine: LocalEngine;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'guru-answers-'));
    database = await store.database(dir);
    engine = await LocalEngine.open({ dataDir: dir, ...database.settings });
    await engine.createGuru({ slug: 'docs', name: 'Docs' });
    await engine.createDataSources('docs', { text_sources: [...texts] });
    await engine.whenIdle();
  });

  afterEach(async () => {
    await engine.close();
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  return (question) => engine.ask('docs', { question, fetch_existing: false });
}

function extractiveAnswers(store: StoreUnderTest): void {
describe('extractive answers', () => {
  const ask = askingGuruOf(store, [
    { name: 'Indexes', content: INDEXES },
    { name: 'Release notes', content: RELEASES },
    { name: 'Server', content: SERVER },
    { name: 'Compiling', content: COMPILE },
    { name: 'Strings', content: STRINGS },
    { name: 'Shadow paging', content: SHADOW },
    { name: 'Derived fields', content: DERIVED },
  ]);

  it('quotes the example a lead-in sentence introduces, even from the next chunk', async () => {
    const answer = await ask('How do I build an index without locking out writes?');
    expect(answer.references[0]?.title).toBe('Indexes');
    expect(answer.content).toContain('To build an index without locking out writes to the table:');
    expect(answer.content).toMatch(/:\n\n```sql\nCREATE INDEX CONCURRENTLY sales_quantity_index/);
    expect(wordCount(answer.content)).toBeLessThanOrEqual(200);
  });

  it('quotes the section of the page that shows the command a how-question asks for, not the one naming the topic most', async () => {
    const answer = await ask('How do I switch my database to shadow paging?');
    expect(answer.references[0]?.title).toBe('Shadow paging');
    expect(answer.content).toContain("To convert it, use the following setting:\n\n```\nSET journal = 'shadow';\n```");
  });

  it('quotes the section after the best one when it shows the statement a how-question asks for', async () => {
    const answer = await ask('How do I make a field whose value is always computed from other fields?');
    expect(answer.references[0]?.title).toBe('Derived fields');
    expect(answer.content).toContain('For example:\n\n```\nCREATE TABLE prices(net INT, tax INT, gross INT DERIVED FROM (net + tax));\n```');
  });

  it('declines a question that shares only incidental words (a year, "world") with the knowledge', async () => {
    const answer = await ask('Who won the 2018 World Cup?');
    expect(answer.trust_score).toBe(0);
    expect(answer.references).toEqual([]);
    expect(answer.can_receive_feedback).toBe(false);
  });

  it('closes a fence whose closing line the page indented', async () => {
    const answer = await ask('How do I change the port the server listens on?');
    expect(answer.references[0]?.title).toBe('Server');
    expect(answer.content).toContain('```toml\n[server]\nport = 8080\n```\n');
    expect(answer.content).not.toMatch(/^ +```/m);
  });

  it('finds the passage that names in its own words what the question asks in everyday ones', async () => {
    const answer = await ask('How do I glue two strings together?');
    expect(answer.references[0]?.title).toBe('Strings');
    expect(answer.content).toContain("'data' || 'base'");
  });

  it('gives low trust when the question names something the knowledge base lacks', async () => {
    // Not "Windows": the release notes' "window functions" hold it, so it is no gap.
    const answer = await ask('Which compiler flags does Frobnicator use on Solaris?');
    expect(answer.references[0]?.title).toBe('Compiling');
    expect(answer.trust_score).toBeGreaterThan(0);
    expect(answer.trust_score).toBeLessThan(50);
    expect(answer.content).toMatch(/^The knowledge base covers this only in part: none of the passages found mention “solaris”/);
  });
});
}

/** The README's example: one document whose sections each answer one question, and mention refunds in passing. */
const BILLING = `# Billing

## Invoices

Invoices are sent on the first day of each month to the billing email of the account.

## Refunds

Refunds are possible within 30 days of payment. Open a ticket with the invoice number, and the refund reaches your card within 5 business days.

## Payment methods

We accept credit cards and bank transfers.
${['Annual plans', 'Add-ons', 'Seats', 'Taxes', 'Currencies', 'Discounts', 'Trials', 'Upgrades', 'Downgrades', 'Cancellations', 'Disputes', 'Receipts']
  .map((topic) => `\n## ${topic}\n\n${topic} follow the general billing terms; a refund for them is handled like any other payment.\n`)
  .join('')}`;

function oneDocument(store: StoreUnderTest): void {
describe('extractive answers from a knowledge base of one document', () => {
  const ask = askingGuruOf(store, [{ name: 'billing.md', content: BILLING }]);

  // Every passage comes from the one page there is: that is no sign of a catch-all page.
  it('trusts the section that answers as more likely right than not', async () => {
    const answer = await ask('How do I get a refund?');
    expect(answer.content).toContain('Refunds are possible within 30 days of payment.');
    expect(answer.references).toHaveLength(1);
    expect(answer.trust_score).toBeGreaterThanOrEqual(50);
  });

  it('still declines a question the document does not cover', async () => {
    const answer = await ask('Who won the 2018 World Cup?');
    expect(answer.trust_score).toBe(0);
    expect(answer.references).toEqual([]);
  });
});
}

onEachStore((store) => {
  extractiveAnswers(store);
  oneDocument(store);
});
