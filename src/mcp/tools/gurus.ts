/** `list_gurus`, `create_guru` and `delete_guru`: only for a backend that owns its gurus (the local engine), on a connection not scoped to one guru. */
import type { McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { lazySchema } from '../../core/lazy-schema.js';
import type { GuruAdmin } from '../../core/assistant.js';
import { CreatedGuru, CreateGuruRequest, DeletedGuru, GuruSlug, Guru } from '../../core/schemas.js';
import { renderGurus } from '../render.js';
import { toolResult } from '../results.js';
import { guarded } from './context.js';
import type { ToolContext } from './context.js';

const CreateGuruParameters = lazySchema(() => z.object({
  slug: CreateGuruRequest.shape.slug.describe('Identifier of the new guru: lowercase letters, digits and inner hyphens, e.g. "acme-docs"'),
  name: CreateGuruRequest.shape.name.describe('Display name; defaults to the slug'),
}));
type CreateGuruParameters = z.infer<typeof CreateGuruParameters>;

const DeleteGuruParameters = lazySchema(() => z.object({
  // Required, unlike the other tools' guru_slug: no guru is deleted by default.
  guru_slug: GuruSlug.describe('Slug of the guru to delete (see list_gurus); required'),
}));
type DeleteGuruParameters = z.infer<typeof DeleteGuruParameters>;

/** `list_gurus` (group asking: where guru_slug comes from). */
export function registerGuruListTool(server: McpServer, context: ToolContext, admin: GuruAdmin): void {
  server.registerTool(
    'list_gurus',
    {
      title: 'List gurus',
      description:
        'List the gurus on this server: slug, name and creation date. A guru is an assistant for one topic with its own knowledge base; the other tools take its slug as guru_slug.',
      inputSchema: z.object({}),
      outputSchema: z.object({ results: z.array(Guru) }),
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    guarded(context, 'list_gurus', 'admin', async () => {
      const gurus = await admin.listGurus();
      return toolResult({ results: gurus }, renderGurus(gurus));
    }),
  );
}

/** `create_guru` and `delete_guru` (group administration). */
export function registerGuruAdminTools(server: McpServer, context: ToolContext, admin: GuruAdmin): void {
  server.registerTool(
    'create_guru',
    {
      title: 'Create a guru',
      description: [
        'Create a new guru with an empty knowledge base; then add knowledge with add_sources.',
        'Returns its slug, name and an API key, shown only this once: the key lets REST API and remote MCP clients reach this guru.',
      ].join(' '),
      inputSchema: CreateGuruParameters,
      outputSchema: CreatedGuru,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    guarded(context, 'create_guru', 'admin', async (args: CreateGuruParameters) => {
      const created = await admin.createGuru(args);
      return toolResult(
        created,
        `Created the guru "${created.slug}" (${created.name}). Its API key, shown only now: ${created.api_key}\nAdd knowledge with add_sources (guru_slug "${created.slug}").`,
      );
    }),
  );

  server.registerTool(
    'delete_guru',
    {
      title: 'Delete a guru',
      description: [
        'Delete a guru with everything it holds, for good: sources, sessions and answers, votes, crawls, end-user data and profiles; its API keys stop working.',
        'Only on request of the user, naming the guru; use delete_sources to remove some sources only.',
      ].join(' '),
      inputSchema: DeleteGuruParameters,
      outputSchema: DeletedGuru,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    },
    guarded(context, 'delete_guru', 'admin', async (args: DeleteGuruParameters) => {
      const deleted = await admin.deleteGuru(args.guru_slug);
      const { data_sources, sessions, questions } = deleted.deleted;
      return toolResult(
        deleted,
        `Deleted the guru "${deleted.slug}" with ${data_sources} data source(s), ${sessions} session(s) and ${questions} answer(s); its API keys no longer work.`,
      );
    }),
  );
}
