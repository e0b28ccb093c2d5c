/** `guru-mcp ask <slug> <question...> [--session ID] [--json]` */
import type { Answer } from '../../core/schemas.js';
import { withBackend } from '../backend.js';
import { shellQuote, writeJson, writeLines } from '../output.js';
import type { CommandContext } from '../spec.js';
import { flag, stringOption } from '../values.js';

/** What follows the answer text: how far to trust it, where it comes from, how to go on. */
export function renderAnswerFooter(answer: Answer, slug: string): string[] {
  const lines = ['', `Trust score: ${answer.trust_score}/100`];
  if (answer.references.length > 0) {
    lines.push('References:');
    answer.references.forEach((reference, index) => {
      lines.push(`  ${index + 1}. ${reference.title}${reference.link ? ` <${reference.link}>` : ''}`);
    });
  }
  lines.push(`Session: ${answer.session_id}`);
  lines.push(`Follow up: guru-mcp ask ${shellQuote(slug)} --session ${shellQuote(answer.session_id)} <question...>`);
  return lines;
}

export async function run(context: CommandContext): Promise<number> {
  const [slug, ...words] = context.args as [string, ...string[]];
  const sessionId = stringOption(context.values, 'session');
  const json = flag(context.values, 'json');
  const { stdout } = context.terminal;

  let streamed = '';
  const onText = (delta: string) => {
    streamed += delta;
    stdout.write(delta);
  };
  const answer = await withBackend(context, ({ assistant }) =>
      assistant.ask(
        slug,
        { question: words.join(' '), fetch_existing: false, ...(sessionId === undefined ? {} : { session_id: sessionId }) },
        { origin: 'CLI', ...(json ? {} : { onText }) },
      ),
    );
  if (json) {
    writeJson(stdout, answer);
    return 0;
  }
  // A backend that does not stream hands over the whole text at the end.
  if (streamed === '') stdout.write(answer.content);
  const text = streamed === '' ? answer.content : streamed;
  if (!text.endsWith('\n')) stdout.write('\n');
  writeLines(stdout, ...renderAnswerFooter(answer, slug));
  return 0;
}
