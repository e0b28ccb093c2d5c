import { describe, expect, it } from 'vitest';
import { isLinkList } from '../../../src/engine/text/link-lists.js';

const entry = (name: string, kind: string) => `-   [${name} (${kind})](http://127.0.0.1/api.html#flask.${name.replace(/\W/g, '')})`;

describe('isLinkList', () => {
  it.each([
    ['a letter of a generated index', [entry('abort()', 'in module flask'), entry('aborter', 'flask.Flask attribute'), entry('add\\_url\\_rule()', 'flask.Flask method')].join('\n')],
    ['a letter of an index with one entry', entry('url\\_for()', 'in module flask')],
    ['an A–Z bar', ['A', 'B', 'C', 'D'].map((letter) => `[**${letter}**](http://127.0.0.1/genindex.html#${letter})`).join(' | ')],
    [
      'a module index table',
      '|     |     |\n| --- | --- |\n|     | **f** |\n|     | [`flask`](http://127.0.0.1/api.html#module-flask) |\n|     | [`flask.json`](http://127.0.0.1/api.html#module-flask.json) |\n|     | [`flask.json.tag`](http://127.0.0.1/api.html#module-flask.json.tag) |',
    ],
    [
      'a table of contents with a line of introduction',
      '**Table of Contents**\n\n[27.1. Comparison of Different Solutions](http://127.0.0.1/a.html)\n\n[27.2. Log-Shipping Standby Servers](http://127.0.0.1/b.html)\n\n[27.3. Failover](http://127.0.0.1/c.html)',
    ],
    ['a See Also line (its heading apart)', '[ALTER TABLE](http://127.0.0.1/sql-altertable.html "ALTER TABLE"), [DROP TABLE](http://127.0.0.1/sql-droptable.html "DROP TABLE")'],
  ])('is true for %s', (_what, markdown) => {
    expect(isLinkList(markdown)).toBe(true);
  });

  it.each([
    ['prose that links', 'Get started with [Installation](http://127.0.0.1/installation.html) and then read the [Quickstart](http://127.0.0.1/quickstart.html). The [API](http://127.0.0.1/api.html) section describes every function.'],
    [
      'a list of links each explained in sentences',
      '- [abort()](http://127.0.0.1/a.html): stops the request. It raises an HTTP exception.\n- [redirect()](http://127.0.0.1/r.html): sends the client elsewhere. The code defaults to 302.\n- [url\\_for()](http://127.0.0.1/u.html): builds a URL. It takes the endpoint name.',
    ],
    ['a sentence with one link', 'See [the configuration file](http://127.0.0.1/config.html) for the wibble level.'],
    ['code with links in it', '```\n[a](b) [c](d) [e](f)\n```'],
    ['text without links', 'The keeper polishes the lens every morning.'],
  ])('is false for %s', (_what, markdown) => {
    expect(isLinkList(markdown)).toBe(false);
  });
});
