/** The services a guru can hold credentials for, as the `integration` commands name them. */
import type { IntegrationKind } from '../core/schemas.js';
import { UsageError } from './failures.js';

export const INTEGRATION_KINDS: readonly IntegrationKind[] = ['jira', 'zendesk', 'confluence'];

export function integrationKindOf(text: string, command: string): IntegrationKind {
  if ((INTEGRATION_KINDS as readonly string[]).includes(text)) return text as IntegrationKind;
  throw new UsageError(`the integration kind is one of ${INTEGRATION_KINDS.join(', ')}, not "${text}"`, command);
}
