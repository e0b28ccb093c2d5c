import { afterEach, describe, expect, it } from 'vitest';
import { JiraReader } from '../../../src/engine/ingest/sources/jira.js';
import { SourceError } from '../../../src/engine/ingest/sources/types.js';
import { wikiMarkupToMarkdown } from '../../../src/engine/ingest/sources/wiki-markup.js';
import { FetchFailure, HttpFetcher } from '../../../src/net/http-fetcher.js';
import { startJiraStandIn, type JiraIssueFixture, type JiraStandIn } from '../../stand-ins/jira.js';

const EMAIL = 'bot@example.com';
const TOKEN = 'jira-token-123';

const ISSUE: JiraIssueFixture = {
  key: 'ENG-42',
  summary: 'Login fails after password reset',
  type: 'Bug',
  status: 'In Progress',
  priority: 'High',
  reporter: 'Mia Krystof',
  assignee: 'Sam Lee',
  created: '2024-03-01T09:15:00.000+0000',
  updated: '2024-03-04T17:40:00.000+0100',
  description: [
    'h2. Steps',
    '# Reset the password',
    '# Log in with the *new* password',
    '',
    'The server logs {{AuthError: stale token}}:',
    '{code:java}',
    'throw new AuthError("stale token");',
    '{code}',
  ].join('\n'),
  comments: [
    { author: 'Sam Lee', body: 'Reproduced on _staging_.', created: '2024-03-01T10:00:00.000+0000' },
    { author: 'Mia Krystof', body: 'See [the runbook|https://wiki.example.com/runbook].', created: '2024-03-02T11:30:00.000+0000' },
    { author: 'Sam Lee', body: 'Root cause: token cache.', created: '2024-03-03T08:00:00.000+0000', visibleTo: 'Developers' },
    { author: 'Ops Bot', body: 'Deployed fix to production.', created: '2024-03-04T12:00:00.000+0000' },
    { author: 'Mia Krystof', body: 'Confirmed fixed.', created: '2024-03-04T16:59:00.000+0000' },
  ],
};

let standIn: JiraStandIn | undefined;
let fetcher: HttpFetcher | undefined;

afterEach(async () => {
  await standIn?.close();
  await fetcher?.close();
  standIn = undefined;
  fetcher = undefined;
});

async function cloudReader(overrides: { apiToken?: string; embeddedComments?: number } = {}): Promise<{ reader: JiraReader; jira: JiraStandIn }> {
  const jira = await startJiraStandIn({
    issues: [ISSUE],
    email: EMAIL,
    apiToken: TOKEN,
    embeddedComments: overrides.embeddedComments ?? 2,
    commentPageSize: 2,
  });
  standIn = jira;
  fetcher = new HttpFetcher({ allowPrivateNetwork: true });
  return { reader: new JiraReader(fetcher, { baseUrl: jira.baseUrl, email: EMAIL, apiToken: overrides.apiToken ?? TOKEN }), jira };
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.fail('expected a rejection'),
    (error: unknown) => error,
  );
}

describe('JiraReader', () => {
  it('reads an issue with metadata, its description as Markdown and every comment, page by page', async () => {
    const { reader, jira } = await cloudReader();
    const document = await reader.read(`${jira.baseUrl}/browse/ENG-42`);

    expect(document.title).toBe('ENG-42: Login fails after password reset');
    expect(document.url).toBe(`${jira.baseUrl}/browse/ENG-42`);
    const markdown = document.markdown;
    expect(markdown.startsWith('# ENG-42: Login fails after password reset\n\n')).toBe(true);
    expect(markdown).toContain(
      'Type: Bug · Status: In Progress · Priority: High · Reporter: Mia Krystof · Assignee: Sam Lee · Created: 2024-03-01 · Updated: 2024-03-04',
    );
    expect(markdown).toContain('## Description\n\n#### Steps\n\n1. Reset the password\n1. Log in with the **new** password');
    expect(markdown).toContain('The server logs `AuthError: stale token`:');
    expect(markdown).toContain('```java\nthrow new AuthError("stale token");\n```');
    expect(markdown).toContain('## Comments\n\n### Sam Lee — 2024-03-01 10:00 UTC\n\nReproduced on _staging_.');
    expect(markdown).toContain('### Mia Krystof — 2024-03-02 11:30 UTC\n\nSee [the runbook](https://wiki.example.com/runbook).');
    expect(markdown).toContain('### Sam Lee — 2024-03-03 08:00 UTC (visible to Developers)\n\nRoot cause: token cache.');
    expect(markdown).toContain('### Mia Krystof — 2024-03-04 16:59 UTC\n\nConfirmed fixed.');
    // Comments stay in order, none repeated.
    const headings = [...markdown.matchAll(/^### (.+)$/gm)].map((match) => match[1]);
    expect(headings).toHaveLength(5);
    expect(headings[3]).toContain('Ops Bot');

    const paths = jira.server.requests.map((request) => request.path);
    expect(paths).toEqual([
      '/rest/api/2/issue/ENG-42?fields=summary,description,comment,status,issuetype,priority,reporter,assignee,created,updated',
      '/rest/api/2/issue/ENG-42/comment?startAt=2&maxResults=100',
      '/rest/api/2/issue/ENG-42/comment?startAt=4&maxResults=100',
    ]);
    for (const request of jira.server.requests) {
      expect(request.headers.authorization).toBe(`Basic ${Buffer.from(`${EMAIL}:${TOKEN}`).toString('base64')}`);
      expect(request.headers.accept).toBe('application/json');
    }
  });

  it('needs no comment requests when the issue embeds all comments', async () => {
    const { reader, jira } = await cloudReader({ embeddedComments: 5 });
    const document = await reader.read(`${jira.baseUrl}/browse/ENG-42`);
    expect([...document.markdown.matchAll(/^### /gm)]).toHaveLength(5);
    expect(jira.server.requests).toHaveLength(1);
  });

  it('accepts board, project and lower-case forms of the issue URL', async () => {
    const { reader, jira } = await cloudReader({ embeddedComments: 5 });
    const forms = [
      `${jira.baseUrl}/browse/eng-42`,
      `${jira.baseUrl}/browse/ENG-42?focusedCommentId=20001#comment-20001`,
      `${jira.baseUrl}/jira/software/projects/ENG/issues/ENG-42`,
      `${jira.baseUrl}/jira/software/c/projects/ENG/boards/7?selectedIssue=ENG-42`,
    ];
    for (const form of forms) {
      const document = await reader.read(form);
      expect(document.url).toBe(`${jira.baseUrl}/browse/ENG-42`);
    }
  });

  it('reads a Server/Data Center site under a context path with a Bearer personal access token', async () => {
    const jira = await startJiraStandIn({ issues: [{ key: 'OPS-7', summary: 'Rotate keys', description: null }], apiToken: 'pat-456', contextPath: '/jira' });
    standIn = jira;
    fetcher = new HttpFetcher({ allowPrivateNetwork: true });
    const reader = new JiraReader(fetcher, { baseUrl: `${jira.baseUrl}/`, apiToken: 'pat-456' });

    const document = await reader.read(`${jira.baseUrl}/browse/OPS-7`);
    expect(jira.baseUrl).toMatch(/\/jira$/);
    expect(document.url).toBe(`${jira.baseUrl}/browse/OPS-7`);
    expect(document.markdown).toBe('# OPS-7: Rotate keys\n\nType: Task · Status: To Do · Assignee: Unassigned · Created: 2024-01-10 · Updated: 2024-01-11\n');
    expect(jira.server.requests[0]?.headers.authorization).toBe('Bearer pat-456');
  });

  it('refuses URLs of another site, naming both, and URLs that name no issue', async () => {
    const { reader, jira } = await cloudReader();
    const foreign = await rejection(reader.read('https://other.atlassian.net/browse/ENG-42'));
    expect(foreign).toBeInstanceOf(SourceError);
    expect((foreign as Error).message).toContain('https://other.atlassian.net/browse/ENG-42');
    expect((foreign as Error).message).toContain(jira.baseUrl);

    for (const bad of ['not a url', `${jira.baseUrl}/projects/ENG`, `${jira.baseUrl}/browse/42`, `${jira.baseUrl}/browse/ENG-`]) {
      const error = await rejection(reader.read(bad));
      expect(error).toBeInstanceOf(SourceError);
      expect((error as SourceError).retryable).toBe(false);
    }
    expect(jira.server.requests).toHaveLength(0);
  });

  it('explains 401 and 404 as source errors that a retry will not fix', async () => {
    const { reader, jira } = await cloudReader({ apiToken: 'wrong-token' });
    const refused = await rejection(reader.read(`${jira.baseUrl}/browse/ENG-42`));
    expect(refused).toBeInstanceOf(SourceError);
    expect((refused as Error).message).toMatch(/^Jira answered 401: .* refused the integration's credentials/);
    expect((refused as SourceError).cause).toBeInstanceOf(FetchFailure);

    const good = new JiraReader(fetcher!, { baseUrl: jira.baseUrl, email: EMAIL, apiToken: TOKEN });
    const missing = await rejection(good.read(`${jira.baseUrl}/browse/ENG-1`));
    expect(missing).toBeInstanceOf(SourceError);
    expect((missing as Error).message).toBe("Jira answered 404: issue ENG-1 does not exist or the integration's account cannot see it");
  });

  it('leaves 429 and 5xx as retryable fetch failures, with Retry-After', async () => {
    const { reader, jira } = await cloudReader();
    jira.server.failNext('/rest/api/2/issue/ENG-42', { status: 429, headers: { 'retry-after': '30' }, body: { errorMessages: ['Rate limit exceeded'] } });
    const limited = await rejection(reader.read(`${jira.baseUrl}/browse/ENG-42`));
    expect(limited).toBeInstanceOf(FetchFailure);
    expect(limited).toMatchObject({ kind: 'http_status', status: 429, retryable: true, retryAfterMs: 30_000 });

    jira.server.failNext('/rest/api/2/issue/ENG-42/comment', { status: 500, body: 'Internal Server Error' });
    const broken = await rejection(reader.read(`${jira.baseUrl}/browse/ENG-42`));
    expect(broken).toMatchObject({ kind: 'http_status', status: 500, retryable: true });

    // And the next attempt succeeds.
    await expect(reader.read(`${jira.baseUrl}/browse/ENG-42`)).resolves.toMatchObject({ title: 'ENG-42: Login fails after password reset' });
  });

  it('says so when the site answers JSON that is not a Jira issue', async () => {
    const { reader, jira } = await cloudReader();
    jira.server.failNext('/rest/api/2/issue/ENG-42', { status: 200, body: { hello: 'world' } });
    const error = await rejection(reader.read(`${jira.baseUrl}/browse/ENG-42`));
    expect(error).toBeInstanceOf(SourceError);
    expect((error as Error).message).toContain('unexpected shape');
  });
});

describe('wikiMarkupToMarkdown', () => {
  it('converts headings, emphasis, monospace, strike-through and links', () => {
    const markdown = wikiMarkupToMarkdown(
      [
        'h1. Title',
        'h3. Sub',
        '*bold* and _italic_ and {{code_span}} and -gone- and +under+ and ??cite??',
        'A [labelled link|https://example.com/a_b_c], a bare [https://example.org], a mention [~accountid:abc123] and an [^log.txt].',
        'snake_case_names and 2024-01-02 and a*b*c stay as they are.',
        'Escaped \\*stars\\* too.',
      ].join('\n'),
    );
    expect(markdown).toBe(
      [
        '# Title',
        '',
        '### Sub',
        '',
        '**bold** and _italic_ and `code_span` and ~~gone~~ and under and _cite_',
        'A [labelled link](https://example.com/a_b_c), a bare <https://example.org>, a mention @abc123 and an log.txt.',
        'snake_case_names and 2024-01-02 and a*b*c stay as they are.',
        'Escaped *stars* too.',
      ].join('\n'),
    );
  });

  it('shifts headings by an offset, capped at six', () => {
    expect(wikiMarkupToMarkdown('h1. One\nh5. Five', { headingOffset: 2 })).toBe('### One\n\n###### Five');
  });

  it('fences {code} with its language and {noformat} without, leaving their markup alone', () => {
    const markdown = wikiMarkupToMarkdown(
      'Before\n{code:title=Query.sql|borderStyle=solid|language=SQL}\nSELECT *bold* FROM t;\n{code}\n{code:python}print("_x_"){code}\n{noformat}\n*raw* [x|y]\n{noformat}\nAfter',
    );
    expect(markdown).toBe('Before\n\n```sql\nSELECT *bold* FROM t;\n```\n\n```python\nprint("_x_")\n```\n\n```\n*raw* [x|y]\n```\n\nAfter');
  });

  it('writes nested and mixed lists', () => {
    const markdown = wikiMarkupToMarkdown('* one\n** one.a\n* two\n\n# first\n#* detail\n# second\n- dash');
    expect(markdown).toBe('- one\n  - one.a\n- two\n\n1. first\n   - detail\n1. second\n- dash');
  });

  it('writes tables with a header row, and gives header-less tables an empty one', () => {
    expect(wikiMarkupToMarkdown('||Name||Link||\n|timeout|[docs|https://x.example/t]|\n|retries|3|')).toBe(
      '| Name | Link |\n| --- | --- |\n| timeout | [docs](https://x.example/t) |\n| retries | 3 |',
    );
    expect(wikiMarkupToMarkdown('Intro\n|a|b|\n|c|d|\nOutro')).toBe('Intro\n\n|  |  |\n| --- | --- |\n| a | b |\n| c | d |\n\nOutro');
  });

  it('quotes {quote}, bq. and panels, and keeps the text after them outside', () => {
    const markdown = wikiMarkupToMarkdown('{quote}\nquoted *text*\nsecond line\n{quote}\nafter\nbq. one-liner\n{panel:title=Heads up}\nPanel body\n{panel}\n{warning}Careful{warning}\nend');
    expect(markdown).toBe(
      '> quoted **text**\n> second line\n\nafter\n\n> one-liner\n\n> **Heads up**\n>\n> Panel body\n\n> **Warning**\n>\n> Careful\n\nend',
    );
  });

  it('turns images into Markdown images, rules into rules, and drops colour tags', () => {
    expect(wikiMarkupToMarkdown('!diagram.png|thumbnail! and !https://img.example/x.gif!\n----\n{color:red}Red{color} text')).toBe(
      '![diagram.png](diagram.png) and ![x.gif](https://img.example/x.gif)\n\n---\n\nRed text',
    );
  });
});
