/**
 * When an answer is declined and when it says it covers the question only in part, end to end on
 * the embedded engine with a small web framework's manual: a decline means the knowledge holds
 * nothing about the question's subject, not that the best passage lacks one of its words.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onEachStore, type EngineDatabase } from '../../support/engine-stores.js';
import type { Answer } from '../../../src/core/schemas.js';
import { LocalEngine } from '../../../src/engine/local-engine.js';

const UPLOADS = `# Uploading files

## A gentle introduction

An application receives files in the request's \`files\` attribute. Each entry is a file object with a
\`filename\` and a \`save()\` method, so a view can store the upload where the application keeps its data.

## Limiting the upload size

By default the server accepts request bodies of any length. To limit the upload size, set the largest
size in bytes allowed:

\`\`\`python
app.config['MAX_CONTENT_LENGTH'] = 16 * 1000 * 1000
\`\`\`

A request whose body is larger is refused with status 413 before the view runs.
`;

const STREAMING = `# Streaming contents

## Basic usage

Sometimes a view must send an enormous amount of data, much more than the application should keep in
memory. Instead of building the response first, return a generator: each piece is sent as it is
produced. This view generates CSV data on the fly:

\`\`\`python
@app.route('/large.csv')
def generate_large_csv():
    def generate():
        for row in iter_all_rows():
            yield f"{','.join(row)}\\n"
    return app.response_class(generate(), mimetype='text/csv')
\`\`\`

## Streaming with context

The request context is gone once the view returns. Wrap the generator in \`stream_with_context\` to keep
it while the generator runs, so that it can still read the request's arguments.
`;

const CONFIG = `# Configuration handling

## Configuration basics

The configuration is a dictionary on the application object. Values are read when the application
starts; change them before the first request.

## Configuration best practices

Create the application in a function and register its blueprints there, so that tests can create
instances with other settings. Load secrets from environment variables, never from the code.
`;

const TEMPLATES = `# Templates

## Rendering templates

A view renders a template with \`render_template()\`, giving the template's name and the variables it
uses. Templates are looked up in the \`templates\` folder next to the application module.

## Template inheritance

A base template defines blocks that child templates fill in, so every page shares one layout.
`;

const ERRORS = `# Handling application errors

## Error handlers

Register an error handler with \`errorhandler()\` to show your own page for a status code such as 404.
The handler receives the error and returns a response like any view.
`;

const DECLINED = /^I could not find anything about this/;
const PARTIAL = /^The knowledge base covers this only in part/;

describe('declines and partial answers', () => onEachStore((store) => {
  let dir: string;
  let database: EngineDatabase;
  let engine: LocalEngine;
  const ask = (question: string): Promise<Answer> => engine.ask('docs', { question, fetch_existing: false });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'guru-declines-'));
    database = await store.database(dir);
    engine = await LocalEngine.open({ dataDir: dir, ...database.settings });
    await engine.createGuru({ slug: 'docs', name: 'Docs' });
    await engine.createDataSources('docs', {
      text_sources: [
        { name: 'Uploading files', content: UPLOADS },
        { name: 'Streaming contents', content: STREAMING },
        { name: 'Configuration handling', content: CONFIG },
        { name: 'Templates', content: TEMPLATES },
        { name: 'Handling application errors', content: ERRORS },
      ],
    });
    await engine.whenIdle();
  });

  afterAll(async () => {
    await engine.close();
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers a question framed by a sentence of context as it answers the question alone', async () => {
    const plain = await ask('How do I limit the upload size?');
    const framed = await ask('People are uploading huge files. How do I limit the upload size?');
    expect(plain.content).toContain("app.config['MAX_CONTENT_LENGTH']");
    expect(framed.content).toBe(plain.content);
    expect(framed.references).toEqual(plain.references);
    expect(framed.trust_score).toBe(plain.trust_score);
  });

  it('answers a question whose subject is in its framing when the asking sentence alone finds nothing', async () => {
    const answer = await ask('Child templates fill in the blocks of one base layout. How do I print the whole thing?');
    expect(answer.content).not.toMatch(DECLINED);
    expect(answer.references[0]?.title).toBe('Templates');
  });

  it('reads a contraction ("I\'m", "won\'t") as the function word it is, not as a word of the question missing everywhere', async () => {
    const answer = await ask("How can I limit the upload size if I'm on the default settings?");
    expect(answer.content).toContain("app.config['MAX_CONTENT_LENGTH']");
    expect(answer.content).not.toMatch(PARTIAL);
  });

  it('answers a question with a word the knowledge never uses, saying which', async () => {
    const answer = await ask('How do I keep request arguments readable inside a generator?');
    expect(answer.content).not.toMatch(DECLINED);
    expect(answer.references[0]?.title).toBe('Streaming contents');
    expect(answer.content).toContain('stream_with_context');
    expect(answer.content).toMatch(/^The knowledge base covers this only in part: none of the passages found mention “readable”, “inside”\./);
  });

  it('declines a question about something else that shares one incidental word with the knowledge', async () => {
    const answer = await ask('What is the best pizza topping?');
    expect(answer.content).toMatch(DECLINED);
    expect(answer.references).toEqual([]);
    expect(answer.trust_score).toBe(0);
  });

  it('says it covers the question only in part when a word of it is found nowhere, and names that word', async () => {
    const whole = await ask('How do I register an error handler for a 404 status code?');
    expect(whole.content).not.toMatch(PARTIAL);
    expect(whole.references[0]?.title).toBe('Handling application errors');

    const lacking = await ask('How do I limit the upload size on Kubernetes?');
    expect(lacking.content).toMatch(PARTIAL);
    expect(lacking.content).toContain('“kubernetes”');
    expect(lacking.trust_score).toBeLessThan(50);
  });

  // A guru of a few dozen pages: words one page uses are as rare as it gets, so a question asked
  // in them alone reads as foreign to the knowledge (KeyTerms.rarity) though that page answers it.
  describe('in a guru where most pages are about something else', () => {
    let mixedDir: string;
    let mixedDatabase: EngineDatabase;
    let mixed: LocalEngine;

    beforeAll(async () => {
      mixedDir = mkdtempSync(join(tmpdir(), 'guru-declines-mixed-'));
      mixedDatabase = await store.database(mixedDir);
      mixed = await LocalEngine.open({ dataDir: mixedDir, ...mixedDatabase.settings });
      await mixed.createGuru({ slug: 'mixed', name: 'Mixed' });
      const unrelated = Array.from({ length: 60 }, (_, i) => ({ name: `Page ${i}`, content: `The okapi number ${i} grazes quietly.` }));
      await mixed.createDataSources('mixed', { text_sources: [...unrelated, { name: 'Wibble notes', content: 'The wibble level of Frobnicator defaults to 3.' }] });
      await mixed.whenIdle();
    });

    afterAll(async () => {
      await mixed.close();
      await mixedDatabase.drop();
      rmSync(mixedDir, { recursive: true, force: true });
    });

    it('answers a question asked in words only one page uses when that page holds every one of them', async () => {
      const answer = await mixed.ask('mixed', { question: 'What is the default wibble level?', fetch_existing: false });
      expect(answer.content).not.toMatch(DECLINED);
      expect(answer.content).toContain('defaults to 3');
      expect(answer.references[0]?.title).toBe('Wibble notes');
    });

    it('still declines a question made of rare words that no one passage holds together', async () => {
      const answer = await mixed.ask('mixed', { question: 'Which songs made the Frobnicator famous?', fetch_existing: false });
      expect(answer.content).toMatch(DECLINED);
      expect(answer.trust_score).toBe(0);
    });
  });
}));
