/** `guru-mcp integration set [<slug>] <jira|zendesk|confluence> --url URL [--email EMAIL] [--json]`; the token from GURU_INTEGRATION_TOKEN or stdin. */
import type { Integration, IntegrationKind } from '../../core/schemas.js';
import { integrationKindOf } from '../integration-kinds.js';
import { adminOf, withGuru } from '../backend.js';
import { UsageError } from '../failures.js';
import { writeJson, writeLines } from '../output.js';
import { readSecret } from '../secret.js';
import type { CommandContext } from '../spec.js';
import { flag, stringOption } from '../values.js';

export const TOKEN_VARIABLE = 'GURU_INTEGRATION_TOKEN';

function siteOf(text: string | undefined, kind: IntegrationKind): string {
  const example = kind === 'zendesk' ? 'https://example.zendesk.com' : 'https://example.atlassian.net';
  if (text === undefined) throw new UsageError(`--url is required: the ${kind} site, e.g. ${example}`, 'integration set');
  const protocol = URL.canParse(text) ? new URL(text).protocol : '';
  if (protocol !== 'http:' && protocol !== 'https:') {
    throw new UsageError(`--url must be an http:// or https:// URL of the ${kind} site, e.g. ${example}, not "${text}"`, 'integration set');
  }
  return text;
}

export function describeIntegration(slug: string, integration: Integration): string {
  const email = integration.email === null ? '' : ` as ${integration.email}`;
  return `${integration.kind} integration of ${slug}: ${integration.base_url}${email} (set ${integration.date_created})`;
}

export async function run(context: CommandContext): Promise<number> {
  return withGuru(context, async (backend, { slug, args: [kindText] }) => {
    const kind = integrationKindOf(kindText!, 'integration set');
    const baseUrl = siteOf(stringOption(context.values, 'url'), kind);
    const email = stringOption(context.values, 'email');
    if (kind === 'zendesk' && email === undefined) {
      throw new UsageError('--email is required for Zendesk: the email of the agent the API token belongs to', 'integration set');
    }

    const token = await readSecret(context.terminal, process.env, TOKEN_VARIABLE, `API token for ${kind} at ${baseUrl} (not shown): `);
    if (token === '') {
      throw new UsageError(`no token: set ${TOKEN_VARIABLE}, or give the token on stdin`, 'integration set');
    }
    const integration = await adminOf(backend).setIntegration(slug, { kind, base_url: baseUrl, token, ...(email === undefined ? {} : { email }) });
    if (flag(context.values, 'json')) writeJson(context.terminal.stdout, integration);
    else writeLines(context.terminal.stdout, describeIntegration(slug, integration));
    return 0;
  });
}
