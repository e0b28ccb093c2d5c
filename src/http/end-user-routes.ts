/**
 * The REST routes of a guru's end users: their data (read a page at a time, or
 * erased) and their profiles. The end user named in the path is rate-limited
 * apart from the key's other users.
 */
import type { Assistant } from '../core/assistant.js';
import { EndUserDataQuery, UpsertProfilesRequest } from '../core/schemas.js';
import { parseRequest } from '../core/validate.js';
import { MiB } from './body.js';
import { BODY_LIMITS, ok, type RestRoute } from './rest.js';

/** Up to 1,000 profiles of 16 KiB each (src/core/schemas.ts), with room for their ids and escapes. */
const PROFILES_BODY_BYTES = 24 * MiB;

export function endUserRoutes(assistant: Assistant): RestRoute[] {
  return [
    {
      method: 'GET',
      path: '/:guru_slug/end-users/:external_user_id/data',
      operation: 'enduser_data',
      maxBodyBytes: BODY_LIMITS.none,
      endUserIn: 'path',
      run: async ({ guru, params, url }) =>
        ok(
          await assistant.getEndUserData(
            guru,
            params.external_user_id ?? '',
            parseRequest(EndUserDataQuery, Object.fromEntries(url.searchParams), 'enduser_data'),
          ),
        ),
    },
    {
      method: 'DELETE',
      path: '/:guru_slug/end-users/:external_user_id/data',
      operation: 'erase_enduser_data',
      maxBodyBytes: BODY_LIMITS.none,
      endUserIn: 'path',
      erasesEndUser: true,
      run: async ({ guru, params }) => ok(await assistant.eraseEndUserData(guru, params.external_user_id ?? '')),
    },
    {
      method: 'POST',
      path: '/:guru_slug/profiles',
      operation: 'upsert_profiles',
      maxBodyBytes: PROFILES_BODY_BYTES,
      run: async ({ guru, body }) => ok(await assistant.upsertProfiles(guru, parseRequest(UpsertProfilesRequest, body, 'upsert_profiles'))),
    },
  ];
}
