/** `guru-mcp ask <slug> <question...> [--session ID] [--json]` */
import type { Answer } from '../../core/schemas.js';
import { withBackend } from '../backend.js';
import { shellQuote, writeJson, writeLines } from '../output.js';
import type { CommandContext, Terminal } from '../spec.js';
import { flag, stringOption } from '../values.js';

const DIM = '\x1b[2m';
const NORMAL = '\x1b[22m';

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

/**
 * Shows where the answer is (searching, writing, a retry wait) to a person at a
 * terminal: dimmed on stderr, each on a line of its own. Pipes and files get
 * only the answer.
 */
function stageWriter(terminal: Terminal, textEndsMidLine: () => boolean): ((line: string) => void) | undefined {
  const { stderr } = terminal;
  if (!stderr.isTTY) return undefined;
  return (line) => stderr.write(`${textEndsMidLine() ? '\n' : ''}${DIM}${line}${NORMAL}\n`);
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
  const onStage = stageWriter(context.terminal, () => streamed !== '' && !streamed.endsWith('\n'));
  const answer = await withBackend(context, ({ assistant }) =>
    assistant.ask(
      slug,
      { question: words.join(' '), fetch_existing: false, ...(sessionId === undefined ? {} : { session_id: sessionId }) },
      { origin: 'CLI', ...(json ? {} : { onText }), ...(onStage === undefined ? {} : { onStage }) },
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
