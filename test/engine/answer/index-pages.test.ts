/**
 * Pages that are lists of links (a generated index, a module index, a table of contents) in a
 * crawled manual: found by the search, but never quoted by answers nor made into follow-ups. The
 * pages are built as Sphinx builds them (Flask's manual: genindex.html, py-modindex.html) and
 * fetched from a loopback server, so they go through the same extraction as any web page.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onEachStore, type EngineDatabase } from '../../support/engine-stores.js';
import { LocalEngine } from '../../../src/engine/local-engine.js';
import { startLoopbackServer, type LoopbackServer } from '../../support/loopback-server.js';

const page = (title: string, body: string) =>
  `<!doctype html><html><head><title>${title} — Flask Documentation (2.2.x)</title></head><body>
  <div class="sphinxsidebar" role="navigation"><a href="index.html">Contents</a></div>
  <div class="body" role="main">${body}</div></body></html>`;

/** What the index lists: name, kind and the anchor on the API page. */
const ENTRIES: readonly (readonly [string, string])[] = [
  ['abort()', 'in module flask'],
  ['aborter', 'flask.Flask attribute'],
  ['aborter_class', 'flask.Flask attribute'],
  ['add_template_filter()', 'flask.Flask method'],
  ['add_url_rule()', 'flask.Flask method'],
  ['after_request()', 'flask.Flask method'],
  ['app_context()', 'flask.Flask method'],
  ['make_response()', 'in module flask'],
  ['make_default_options_response()', 'flask.Flask method'],
  ['max_content_length', 'flask.Request property'],
  ['redirect()', 'in module flask'],
  ['register_blueprint()', 'flask.Flask method'],
  ['render_template()', 'in module flask'],
  ['request', 'in module flask'],
  ['request_class', 'flask.Flask attribute'],
  ['send_file()', 'in module flask'],
  ['send_from_directory()', 'in module flask'],
  ['session', 'in module flask'],
  ['session_interface', 'flask.Flask attribute'],
  ['url_for()', 'in module flask'],
];

/** Sphinx's genindex.html: an A–Z bar, then per letter a heading and a table of lists of links. */
const GENINDEX = page(
  'Index',
  `<h1 id="index">Index</h1>
  <div class="genindex-jumpbox">${['A', 'M', 'R', 'S', 'U'].map((letter) => `<a href="#${letter}"><strong>${letter}</strong></a>`).join(' | ')}</div>
  ${['A', 'M', 'R', 'S', 'U']
    .map(
      (letter) => `<h2 id="${letter}">${letter}</h2>
  <table style="width: 100%" class="indextable genindextable"><tr><td style="width: 33%; vertical-align: top;"><ul>
  ${ENTRIES.filter(([name]) => name.toUpperCase().startsWith(letter))
    .map(([name, kind]) => `<li><a href="api.html#flask.${name.replace(/\(\)$/, '')}">${name} (${kind})</a></li>`)
    .join('\n')}
  </ul></td></tr></table>`,
    )
    .join('\n')}`,
);

/** Sphinx's py-modindex.html: a table of the modules, each a link. */
const MODINDEX = page(
  'Python Module Index',
  `<h1>Python Module Index</h1>
  <div class="modindex-jumpbox"><a href="#cap-f"><strong>f</strong></a></div>
  <table class="indextable modindextable">
  <tr class="pcap"><td></td><td>&#160;</td><td></td></tr>
  <tr class="cap" id="cap-f"><td></td><td><strong>f</strong></td><td></td></tr>
  <tr><td></td><td><a href="api.html#module-flask"><code class="xref">flask</code></a></td><td></td></tr>
  <tr><td></td><td><a href="api.html#module-flask.json"><code class="xref">flask.json</code></a></td><td></td></tr>
  <tr><td></td><td><a href="api.html#module-flask.json.tag"><code class="xref">flask.json.tag</code></a></td><td></td></tr>
  <tr><td></td><td><a href="api.html#module-flask.sessions"><code class="xref">flask.sessions</code></a></td><td></td></tr>
  </table>`,
);

const API = page(
  'API',
  `<h1>API</h1>
  <section id="useful-functions"><h2>Useful Functions and Classes</h2>
  <dl><dt id="flask.abort">flask.abort(code)</dt><dd><p>Raise an HTTPException for the given status code, which stops
  the request early. The module flask exports abort so that a view can end with an error page at once, for example
  abort(404) when a record does not exist.</p></dd>
  <dt id="flask.redirect">flask.redirect(location, code=302)</dt><dd><p>Create a redirect response object that sends the
  client to another location. The module flask exports redirect beside url_for, which builds the location.</p></dd>
  <dt id="flask.make_response">flask.make_response(*args)</dt><dd><p>Turn the return value of a view into a response
  object, to which headers can be added before it is returned.</p></dd></dl></section>
  <section id="sessions"><h2>Sessions</h2><p>The session object of the module flask keeps values between requests in a
  signed cookie. Set a secret key first: the session interface signs the cookie with it.</p></section>
  <section id="url-building"><h2>URL Building</h2><p>The url_for function of the module flask builds a URL to a view
  function from its name and arguments, so that templates never write URLs by hand.</p></section>`,
);

const QUICKSTART = page(
  'Quickstart',
  `<h1>Quickstart</h1>
  <section id="redirects-and-errors"><h2>Redirects and Errors</h2><p>To send a user to another endpoint, use the
  redirect function; to end a request early with an error code, use the abort function. By default a black and white
  error page is shown for each error code.</p></section>
  <section id="rendering-templates"><h2>Rendering Templates</h2><p>Flask configures the Jinja engine for you. To render a
  template, use the render_template method with the name of the template and the variables to pass to it.</p></section>`,
);

describe('pages that are lists of links', () => onEachStore((store) => {
  let dir: string;
  let database: EngineDatabase;
  let engine: LocalEngine;
  let site: LoopbackServer;

  beforeAll(async () => {
    const html = (body: string) => (_request: unknown, response: ServerResponse) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(body);
    };
    site = await startLoopbackServer({
      '/genindex.html': html(GENINDEX),
      '/py-modindex.html': html(MODINDEX),
      '/api.html': html(API),
      '/quickstart.html': html(QUICKSTART),
    });
    dir = mkdtempSync(join(tmpdir(), 'guru-index-pages-'));
    database = await store.database(dir);
    engine = await LocalEngine.open({ dataDir: dir, ...database.settings, allowPrivateNetwork: true });
    await engine.createGuru({ slug: 'flask', name: 'Flask' });
    await engine.createDataSources('flask', {
      website_urls: ['/genindex.html', '/py-modindex.html', '/api.html', '/quickstart.html'].map((path) => site.url(path)),
    });
    await engine.whenIdle();
  });

  afterAll(async () => {
    await engine.close();
    await site.close();
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  const cited = (answer: { references: readonly { link: string }[] }) => answer.references.map((reference) => new URL(reference.link).pathname);

  it.each([
    'Which module has abort?',
    'What is the aborter class attribute of a Flask app?',
    'Which modules does flask have for json tags?',
    'How do I make a response in the flask module?',
    'Which method registers a blueprint?',
  ])('never quotes the index pages: %s', async (question) => {
    const answer = await engine.ask('flask', { question, fetch_existing: false });
    expect(cited(answer)).not.toContain('/genindex.html');
    expect(cited(answer)).not.toContain('/py-modindex.html');
    expect(answer.content).not.toContain('](');
  });

  it('still answers from the pages the index points to', async () => {
    const answer = await engine.ask('flask', { question: 'Which module has abort?', fetch_existing: false });
    expect(cited(answer)[0]).toBe('/api.html');
    expect(answer.content).toContain('Raise an HTTPException');
  });

  it('makes no follow-up of an index letter or entry', async () => {
    for (const question of ['Which module has abort?', 'How do I redirect a user with the flask module?', 'How do sessions work in the flask module?']) {
      const answer = await engine.ask('flask', { question, fetch_existing: false });
      const { follow_up_examples: examples } = await engine.followUpExamples('flask', { question_slug: answer.slug });
      for (const example of examples) {
        expect(example).not.toMatch(/about [\p{L}_]\?$/u);
        expect(example).not.toMatch(/in module|attribute\)|method\)/);
      }
    }
  });

  it('lets semantic search still list them, as places where the words are', async () => {
    const found = await engine.semanticSearch('flask', { question: 'aborter_class' });
    expect(found.sources.map((source) => new URL(source.link ?? '').pathname)).toContain('/genindex.html');
  });
}));
