/** `guru-mcp ask [<slug>] <question...> [--session ID] [--attach FILE]... [--follow-ups] [--json]` */
import { loadRenderer, plainAnswerText, renderedAnswerText } from '../answer-text.js';
import { attachmentsOf } from '../attachments.js';
import { withGuru } from '../backend.js';
import { renderAnswerFooter } from '../answers.js';
import { readFiles } from '../input.js';
import { commandLineOf } from '../invocation.js';
import { writeJson, writeLines } from '../output.js';
import type { CommandContext, Terminal } from '../spec.js';
import { controlled, writeControlled } from '../terminal-text.js';
import { flag, stringList, stringOption } from '../values.js';
import { renderFollowUps } from './follow-ups.js';

/**
 * Shows where the answer is (searching, writing, a retry wait) to a person at a
 * terminal: dimmed on stderr, each on a line of its own. Pipes and files get
 * only the answer.
 */
function stageWriter(terminal: Terminal, textEndsMidLine: () => boolean): ((line: string) => void) | undefined {
  const { stderr } = terminal;
  if (!stderr.isTTY) return undefined;
  return (line) => {
    if (textEndsMidLine()) stderr.write('\n');
    writeControlled(stderr, controlled`\x1b[2m${line}\x1b[22m\n`);
  };
}

export async function run(context: CommandContext): Promise<number> {
  const sessionId = stringOption(context.values, 'session');
  const json = flag(context.values, 'json');
  const { stdout } = context.terminal;
  // A terminal gets the answer rendered; pipes, files and --json keep the Markdown.
  const text = json ? undefined : stdout.isTTY ? renderedAnswerText(stdout, loadRenderer(stdout)) : plainAnswerText(stdout);
  const onStage = stageWriter(context.terminal, () => text?.endsMidLine() ?? false);

  const followUps = flag(context.values, 'follow-ups');
  // Read and placed before the backend opens: a file that cannot be attached sends nothing.
  const attachments = attachmentsOf(await readFiles(stringList(context.values, 'attach'), 'attach'));

  const { slug, answer, next } = await withGuru(context, async ({ assistant }, { slug, args: words }) => {
    const answer = await assistant.ask(
      slug,
      { question: words.join(' '), fetch_existing: false, ...(sessionId === undefined ? {} : { session_id: sessionId }), ...attachments },
      { origin: 'CLI', ...(text === undefined ? {} : { onText: (delta: string) => text.write(delta) }), ...(onStage === undefined ? {} : { onStage }) },
    );
    const next = followUps ? await assistant.followUpExamples(slug, { question_slug: answer.slug, binge_id: answer.session_id }) : undefined;
    return { slug, answer, next };
  });
  if (text === undefined) {
    writeJson(stdout, next === undefined ? answer : { ...answer, follow_up_examples: next.follow_up_examples });
    return 0;
  }
  // A backend that does not stream hands over the whole text at the end.
  await text.end(answer.content);
  writeLines(stdout, ...renderAnswerFooter(answer, slug, commandLineOf(context.config)));
  if (next !== undefined) writeLines(stdout, '', ...renderFollowUps(next));
  return 0;
}
