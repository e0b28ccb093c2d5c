/**
 * A Confluence stand-in speaking the REST API v1 as documented:
 * GET {api}/content/{id}?expand=body.storage,space,version and
 * GET {api}/content?spaceKey=&title=&expand=…, where {api} is `/wiki/rest/api`
 * on Cloud and `{contextPath}/rest/api` on Server/Data Center. Content objects
 * carry `_links` and `_expandable` like the real ones, and `expand` is honoured.
 * Basic email:token for Cloud, Bearer personal access token for Server/DC.
 */
import { basicCredentials, bearerToken, json, type LoopbackServer, type RecordedRequest, replying, startLoopbackServer } from '../support/loopback-server.js';

export interface ConfluencePageFixture {
  readonly id: string;
  readonly spaceKey: string;
  readonly spaceName?: string;
  readonly title: string;
  /** Storage format (XHTML with ac: and ri: elements). */
  readonly storage: string;
  readonly type?: 'page' | 'blogpost';
  readonly version?: number;
  readonly author?: string;
}

export interface ConfluenceStandInOptions {
  readonly pages: readonly ConfluencePageFixture[];
  /** `cloud`: API under /wiki, Basic email:token. `server`: API under the context path, Bearer token. */
  readonly flavour: 'cloud' | 'server';
  /** Cloud only. */
  readonly email?: string;
  readonly apiToken: string;
  /** Server/DC context path such as `/confluence`. Default none. */
  readonly contextPath?: string;
}

export interface ConfluenceStandIn {
  readonly server: LoopbackServer;
  /** The site: `http://127.0.0.1:PORT` for Cloud (pages under /wiki), with the context path for Server/DC. */
  readonly baseUrl: string;
  close(): Promise<void>;
}

export async function startConfluenceStandIn(options: ConfluenceStandInOptions): Promise<ConfluenceStandIn> {
  const context = options.flavour === 'cloud' ? '/wiki' : (options.contextPath ?? '');
  const server = await startLoopbackServer(replying((request) => {
    if (!authorized(request, options)) {
      return json(401, { statusCode: 401, message: 'Current user not permitted to use Confluence' }, { 'www-authenticate': 'Basic realm="Confluence"' });
    }
    const links = { base: `${server.origin}${context}`, context };
    const path = request.url.pathname;
    const expand = (request.url.searchParams.get('expand') ?? '').split(',').filter(Boolean);
    const byId = new RegExp(`^${context}/rest/api/content/(\\d+)$`).exec(path);
    if (byId?.[1]) {
      const page = options.pages.find((candidate) => candidate.id === byId[1]);
      if (!page) {
        return json(404, {
          statusCode: 404,
          data: { authorized: false, valid: true, allowedInReadOnlyMode: true, errors: [], successful: false },
          message: `No content found with id: ContentId{id=${byId[1]}}`,
          reason: 'Not Found',
        });
      }
      return json(200, contentJson(page, expand, links));
    }
    if (path === `${context}/rest/api/content`) {
      const query = request.url.searchParams;
      const results = options.pages.filter(
        (page) =>
          (!query.has('spaceKey') || page.spaceKey === query.get('spaceKey')) &&
          (!query.has('title') || page.title === query.get('title')) &&
          (page.type ?? 'page') === (query.get('type') ?? 'page'),
      );
      return json(200, {
        results: results.map((page) => contentJson(page, expand, links)),
        start: 0,
        limit: 25,
        size: results.length,
        _links: { ...links, self: `${links.base}/rest/api/content` },
      });
    }
    return json(404, { statusCode: 404, message: `null for uri: ${request.url.href}`, reason: 'Not Found' });
  }));
  return { server, baseUrl: options.flavour === 'cloud' ? server.origin : `${server.origin}${context}`, close: () => server.close() };
}

function authorized(request: RecordedRequest, options: ConfluenceStandInOptions): boolean {
  return options.flavour === 'cloud'
    ? basicCredentials(request.headers) === `${options.email}:${options.apiToken}`
    : bearerToken(request.headers) === options.apiToken;
}

function contentJson(page: ConfluencePageFixture, expand: readonly string[], links: { base: string; context: string }): object {
  const self = `${links.base}/rest/api/content/${page.id}`;
  const expandable: Record<string, string> = {
    childTypes: '',
    container: `/rest/api/space/${page.spaceKey}`,
    metadata: '',
    operations: '',
    children: `/rest/api/content/${page.id}/child`,
    restrictions: `/rest/api/content/${page.id}/restriction/byOperation`,
    history: `/rest/api/content/${page.id}/history`,
    ancestors: '',
    descendants: `/rest/api/content/${page.id}/descendant`,
  };
  const content: Record<string, unknown> = { id: page.id, type: page.type ?? 'page', status: 'current', title: page.title };
  if (expand.includes('space')) {
    content.space = {
      id: 98_306,
      key: page.spaceKey,
      name: page.spaceName ?? page.spaceKey,
      type: 'global',
      status: 'current',
      _expandable: { settings: '', metadata: '', operations: '', lookAndFeel: '', identifiers: '', permissions: '', icon: '', description: '', theme: '', history: '', homepage: '' },
      _links: { webui: `/spaces/${page.spaceKey}`, self: `${links.base}/rest/api/space/${page.spaceKey}` },
    };
  } else expandable.space = `/rest/api/space/${page.spaceKey}`;
  if (expand.includes('version')) {
    content.version = {
      by: { type: 'known', accountId: '557058:f5f0b1a0', accountType: 'atlassian', publicName: page.author ?? 'Ada Admin', displayName: page.author ?? 'Ada Admin' },
      when: '2024-04-02T10:20:30.000Z',
      friendlyWhen: 'Apr 02, 2024',
      message: '',
      number: page.version ?? 1,
      minorEdit: false,
      contentTypeModified: false,
      _links: { self: `${self}/version/${page.version ?? 1}` },
    };
  } else expandable.version = '';
  if (expand.includes('body.storage')) {
    content.body = {
      storage: { value: page.storage, representation: 'storage', embeddedContent: [], _expandable: { content: `/rest/api/content/${page.id}` } },
      _expandable: { editor: '', atlas_doc_format: '', view: '', export_view: '', styled_view: '', dynamic: '', editor2: '', anonymous_export_view: '' },
    };
  } else expandable.body = '';
  const webui = `/spaces/${page.spaceKey}/pages/${page.id}/${encodeURIComponent(page.title).replace(/%20/g, '+')}`;
  return {
    ...content,
    extensions: { position: 1 },
    _expandable: expandable,
    _links: { editui: `/pages/resumedraft.action?draftId=${page.id}`, webui, tinyui: '/x/ewE', self, ...links, collection: '/rest/api/content' },
  };
}
