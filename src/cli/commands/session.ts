/** `guru-mcp session [<slug>] <id> [--json]`: a conversation, readable. */
import type { ConversationTurn, SessionConversation } from '../../core/schemas.js';
import { withGuru } from '../backend.js';
import { referenceLines } from '../answers.js';
import { loadRenderer } from '../answer-text.js';
import { commandLineOf, type CommandLine } from '../invocation.js';
import type { RenderMarkdown } from '../markdown.js';
import type { Controlled } from '../terminal-text.js';
import { shellQuote, writeJson, writeLines } from '../output.js';
import type { CommandContext } from '../spec.js';
import { flag } from '../values.js';

const asIs: RenderMarkdown = (markdown) => `${markdown.trimEnd()}\n`;

function turnLines(turn: ConversationTurn, index: number, render: RenderMarkdown): (string | Controlled)[] {
  const question = turn.user_question.trim() === '' ? turn.question : turn.user_question;
  return [
    `[${index + 1}] ${turn.date_created}`,
    `Q: ${question}`,
    '',
    // Ends with a newline: the blank line before the trust score.
    render(turn.answer),
    `Trust score: ${turn.trust_score}/100${turn.user_vote === null ? '' : ` · Vote: ${turn.user_vote}`}`,
    ...referenceLines(turn.references),
  ];
}

/** The session's questions in order, each with its answer (through `render`), trust score and references; then how to follow up. */
export function renderSession(session: SessionConversation, slug: string, command: CommandLine, render: RenderMarkdown = asIs): (string | Controlled)[] {
  const count = session.conversation.length;
  const lines: (string | Controlled)[] = [`Session ${session.binge_id}: ${count} question${count === 1 ? '' : 's'}, started ${session.date_created}, last used ${session.last_used}`];
  session.conversation.forEach((turn, index) => lines.push('', ...turnLines(turn, index, render)));
  lines.push('', `Follow up: ${command(`ask ${shellQuote(slug)} --session ${shellQuote(session.binge_id)} <question...>`)}`);
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
  writeLines(stdout, ...renderSession(session, slug, commandLineOf(context.config), render));
  return 0;
}
