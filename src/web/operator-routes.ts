/**
 * The web interface's own JSON routes, under WEB_API_PREFIX: operator operations
 * that are not in the spec's REST API (who a key belongs to, documents upload,
 * integrations, the guru's settings, and on a loopback bind the gurus themselves: listed, created, deleted). They only translate
 * to the port's GuruAdmin, through the same key check, body caps and error
 * bodies as REST (createApiHandler).
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { GuruAdmin } from '../core/assistant.js';
import { Errors } from '../core/errors.js';
import { CreateGuruRequest, GuruSettingsPatch, GuruSlug, IntegrationInput, IntegrationKind, Labels } from '../core/schemas.js';
import { parseRequest } from '../core/validate.js';
import { MiB } from '../http/body.js';
import { BODY_LIMITS, ok, type RestRoute } from '../http/rest.js';

export const WEB_API_PREFIX = '/web/api';

/** One document per request, sent as its bytes: the engine takes files up to 50 MB. */
export const DOCUMENT_BODY_BYTES = 50 * MiB;

export interface OperatorRoutesOptions {
  readonly admin: GuruAdmin;
  /** Whether anyone who reaches the server may list and create gurus: only on a loopback bind. */
  readonly localOperator: boolean;
}

/** As a text source's name over REST. */
const MAX_FILE_NAME_CHARS = 500;

/**
 * The keyless guru routes are for the person at this machine. A request a proxy passed on
 * (it says so in these headers) may come from anywhere, whatever its Host header says.
 */
function refuseProxied(headers: IncomingHttpHeaders): void {
  if (['forwarded', 'x-forwarded-for', 'x-real-ip'].some((name) => headers[name] !== undefined)) {
    throw Errors.forbidden('admin', 'Listing, creating and deleting gurus without a key is for the local operator; this request came through a proxy. Use guru-mcp guru create or guru delete on the server.');
  }
}

export function operatorRoutes({ admin, localOperator }: OperatorRoutesOptions): RestRoute[] {
  const guruRoutes: RestRoute[] = [
    {
      method: 'GET',
      path: '/gurus',
      operation: 'admin',
      access: 'anyone',
      maxBodyBytes: BODY_LIMITS.none,
      run: async ({ headers }) => {
        refuseProxied(headers);
        return ok(await admin.listGurus());
      },
    },
    {
      method: 'POST',
      path: '/gurus',
      operation: 'admin',
      access: 'anyone',
      maxBodyBytes: BODY_LIMITS.request,
      run: async ({ headers, body }) => {
        refuseProxied(headers);
        return ok(await admin.createGuru(parseRequest(CreateGuruRequest, body, 'admin')));
      },
    },
    {
      // Everything of the guru goes, for good; the page asks first.
      method: 'DELETE',
      path: '/gurus/:slug',
      operation: 'admin',
      access: 'anyone',
      maxBodyBytes: BODY_LIMITS.none,
      run: async ({ headers, params }) => {
        refuseProxied(headers);
        return ok(await admin.deleteGuru(parseRequest(GuruSlug, params.slug, 'admin')));
      },
    },
  ];
  return [
    {
      method: 'GET',
      path: '/me',
      operation: 'admin',
      maxBodyBytes: BODY_LIMITS.none,
      run: async ({ guru }) => {
        const found = (await admin.listGurus()).find(({ slug }) => slug === guru);
        return ok({ guru_slug: guru, name: found?.name ?? guru, local_operator: localOperator });
      },
    },
    {
      method: 'POST',
      path: '/documents',
      operation: 'admin',
      bodyKind: 'bytes',
      maxBodyBytes: DOCUMENT_BODY_BYTES,
      run: async ({ guru, url, raw }) => {
        const name = url.searchParams.get('name') ?? '';
        if (name.trim() === '') throw Errors.invalidInput('admin', 'the file name is missing (query parameter name)');
        if (name.length > MAX_FILE_NAME_CHARS) throw Errors.invalidInput('admin', `the file name must be at most ${MAX_FILE_NAME_CHARS} characters`);
        const labelsText = url.searchParams.get('labels') ?? '';
        const labels = parseRequest(Labels, labelsText === '' ? [] : labelsText.split(',').map((label) => label.trim()), 'admin');
        const isPrivate = url.searchParams.get('private') === 'true';
        const [uploaded] = await admin.uploadDocuments(guru, [{ name, data: raw }], { private: isPrivate, labels });
        return ok(uploaded);
      },
    },
    {
      method: 'GET',
      path: '/integrations',
      operation: 'admin',
      maxBodyBytes: BODY_LIMITS.none,
      run: async ({ guru }) => ok(await admin.listIntegrations(guru)),
    },
    {
      method: 'POST',
      path: '/integrations',
      operation: 'admin',
      maxBodyBytes: BODY_LIMITS.request,
      run: async ({ guru, body }) => ok(await admin.setIntegration(guru, parseRequest(IntegrationInput, body, 'admin'))),
    },
    {
      method: 'DELETE',
      path: '/integrations/:kind',
      operation: 'admin',
      maxBodyBytes: BODY_LIMITS.none,
      run: async ({ guru, params }) => {
        const kind = parseRequest(IntegrationKind, params.kind, 'admin');
        return ok({ removed: await admin.removeIntegration(guru, kind) });
      },
    },
    {
      method: 'GET',
      path: '/settings',
      operation: 'admin',
      maxBodyBytes: BODY_LIMITS.none,
      run: async ({ guru }) => ok(await admin.guruSettings(guru)),
    },
    {
      // Changes the fields given and answers with all the settings.
      method: 'POST',
      path: '/settings',
      operation: 'admin',
      maxBodyBytes: BODY_LIMITS.request,
      run: async ({ guru, body }) => ok(await admin.updateGuruSettings(guru, parseRequest(GuruSettingsPatch, body, 'admin'))),
    },
    ...(localOperator ? guruRoutes : []),
  ];
}
