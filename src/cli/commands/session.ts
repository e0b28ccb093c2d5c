/** `guru-mcp session [<slug>] <id> [--json]`: a conversation, readable. */
import type { ConversationTurn, SessionConversation } from '../../core/schemas.js';
import { withGuru } from '../backend.js';
import { referenceLines } from '../answers.js';
import { loadRenderer } from '../answer-text.js';
import type { RenderMarkdown } from '../markdown.js';
import { shellQuote, writeJson, writeLines } from '../output.js';
import type { CommandContext } from '../spec.js';
import { flag } from '../values.js';

const asIs: RenderMarkdown = (markdown) => `${markdown.trimEnd()}\n`;

function turnLines(turn: ConversationTurn, index: number, render: RenderMarkdown): string[] {
  const question = turn.user_question.trim() === '' ? turn.question : turn.user_question;
  return [
    `[${index + 1}] ${turn.date_created}`,
    `Q: ${question}`,
    '',
    render(turn.answer).replace(/\n$/, ''),
    '',
    `Trust score: ${turn.trust_score}/100${turn.user_vote === null ? '' : ` · Vote: ${turn.user_vote}`}`,
    ...referenceLines(turn.references),
  ];
}

/** The session's questions in order, each with its answer (through `render`), trust score and references. */
export function renderSession(session: SessionConversation, slug: string, render: RenderMarkdown = asIs): string[] {
  const count = session.conversation.length;
  const lines = [`Session ${session.binge_id}: ${count} question${count === 1 ? '' : 's'}, started ${session.date_created}, last used ${session.last_used}`];
  session.conversation.forEach((turn, index) => lines.push('', ...turnLines(turn, index, render)));
  lines.push('', `Follow up: guru-mcp ask ${shellQuote(slug)} --session ${shellQuote(session.binge_id)} <question...>`);
  return lines;
}

export async function run(context: CommandContext): Promise<number> {
  const { slug, session } = await withGuru(context, async ({ assistant }, { slug, args: [id] }) => ({
    slug,
    session: await assistant.getSession(slug, id!),
  }));
  const { stdout } = context.terminal;
  if (flag(context.values, 'json')) {
    writeJson(stdout, session);
    return 0;
  }
  // Rendered on a terminal only; loaded here, so that pipes never pay for the renderer.
  const render = (stdout.isTTY ? await loadRenderer(stdout) : undefined) ?? asIs;
  writeLines(stdout, ...renderSession(session, slug, render));
  return 0;
}
