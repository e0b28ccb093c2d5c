/**
 * Choosing the page to quote on the embedded engine: a catch-all page (an API
 * reference of many unrelated entries) whose one entry names the question's
 * words, against a short page about the question throughout.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalEngine } from '../../../src/engine/local-engine.js';

const UNRELATED = ['open', 'close', 'prepare', 'step', 'finalize', 'column count', 'column text', 'bind text', 'reset', 'changes', 'errmsg', 'free', 'malloc', 'sleep', 'threadsafe', 'limit', 'status', 'backup', 'blob open', 'config'];

/** One entry per function, each a section of its own, one of them about waiting on a busy database. */
const REFERENCE = `# C API reference

${UNRELATED.map((name) => `## frob_${name.replace(' ', '_')}\n\nThe frob_${name.replace(' ', '_')} function takes a handle and returns a result code. It is part of the core interface and may be called from any thread.`).join('\n\n')}

## frob_busy_timeout

A connection that finds the database busy can wait: this function makes the connection wait and retry while the database is busy, for at most the given milliseconds, instead of failing at once.
`;

const TIMEOUT = `# Busy timeout

## Overview

When another connection writes, the database is busy, and a connection that needs it fails at once unless it was told to wait.

## Setting the timeout

To make the connection wait up to five seconds before it gives up:

\`\`\`
SET busy_timeout = 5000;
\`\`\`

The connection retries until the lock is free or the timeout passes.

## Waiting in your own code

A connection can also wait in a loop of its own: when a statement fails because the database is busy, sleep a little and try it again.

## When the wait ends

If the database is still busy when the timeout passes, the connection gives up and the statement fails with a busy error.
`;

describe('page choice', () => {
  let dir: string;
  let engine: LocalEngine;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'guru-page-focus-'));
    engine = LocalEngine.open({ dataDir: dir });
    await engine.createGuru({ slug: 'docs', name: 'Docs' });
    await engine.createDataSources('docs', {
      text_sources: [
        { name: 'C API reference', content: REFERENCE },
        { name: 'Busy timeout', content: TIMEOUT },
      ],
    });
    await engine.whenIdle();
  });

  afterEach(async () => {
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('quotes the page about the question before a catch-all page that names its words in one entry', async () => {
    const answer = await engine.ask('docs', { question: 'How do I make my connection wait while the database is busy?', fetch_existing: false });
    expect(answer.references[0]?.title).toBe('Busy timeout');
    expect(answer.content).toContain('SET busy_timeout = 5000;');
  });
});
