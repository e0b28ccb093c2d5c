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
  slug: CreateGuruRequest.shape.slug.describe('e.g. "acme-docs"'),
  name: CreateGuruRequest.shape.name.describe('Display name; default: the slug'),
}));
type CreateGuruParameters = z.infer<typeof CreateGuruParameters>;

const DeleteGuruParameters = lazySchema(() => z.object({
  // Required, unlike the other tools' guru_slug: no guru is deleted by default.
  guru_slug: GuruSlug.describe('Guru to delete'),
}));
type DeleteGuruParameters = z.infer<typeof DeleteGuruParameters>;

/** `list_gurus` (group asking: where guru_slug comes from). */
export function registerGuruListTool(server: McpServer, context: ToolContext, admin: GuruAdmin): void {
  server.registerTool(
    'list_gurus',
    {
      title: 'List gurus',
      description:
        'List the gurus: topic experts, each with its own knowledge base. Other tools take the slug as guru_slug.',
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
      description:
        'Create a guru with an empty knowledge base; returns its API key, shown once.',
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
      description:
        'Delete a guru and all it holds, for good: only when the user asks, naming it.',
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
