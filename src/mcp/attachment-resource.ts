/**
 * The resource a reference to an attachment links to (guru://{guru_slug}/sessions/{session_id}/attachments/{n}):
 * the text of a log file as sent, or of a PDF as the Markdown extracted from it. Read on demand;
 * not listed (a session's files are found through its answers' references).
 */
import { ResourceTemplate } from '@modelcontextprotocol/server';
import type { McpServer } from '@modelcontextprotocol/server';
import { ResourceNotFound, decoded, read, safely, single, slugOf, type ResourceContext } from './resources.js';

/** The n of a link: 1, 2, … written plainly (no sign, no leading zero). */
const ORDINAL = /^[1-9][0-9]{0,15}$/;

export function registerAttachmentResource(server: McpServer, context: ResourceContext): void {
  const { assistant, gurus } = context;
  server.registerResource(
    'session-attachment',
    new ResourceTemplate('guru://{guru_slug}/sessions/{session_id}/attachments/{n}', {
      list: undefined,
      complete: { guru_slug: async (value) => (await safely(context, () => gurus.known())).filter((slug) => slug.startsWith(value)) },
    }),
    {
      title: 'A file attached to a question',
      description:
        "A log file (its text as sent) or PDF (its text as Markdown) attached to a question of a session; answers' references to attachments link here. The file name is in _meta.name.",
    },
    async (uri, variables, extra) =>
      read(context, uri, async () => {
        const guru = slugOf(variables, gurus);
        await context.rateLimit?.chargeRead('get_session', guru, extra);
        const sessionId = decoded(single(variables.session_id));
        const n = single(variables.n);
        if (!ORDINAL.test(n)) throw new ResourceNotFound();
        const attachment = await assistant.sessionAttachment(guru, sessionId, Number(n));
        return { contents: [{ uri: uri.href, mimeType: attachment.mime_type, text: attachment.text, _meta: { name: attachment.name } }] };
      }),
  );
}
