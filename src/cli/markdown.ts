/**
 * Markdown rendered for a terminal (bold, code, lists, tables, wrapped to its
 * width) by marked and marked-terminal. Only imported when an answer is shown
 * on a terminal: loading the two and their highlighter costs about 100 ms,
 * which pipes, --json and every other command do without.
 */
import { Marked, type MarkedExtension } from 'marked';
import { markedTerminal as declaredMarkedTerminal, type TerminalRendererOptions } from 'marked-terminal';
import { rendered, terminalSafe, type Controlled } from './terminal-text.js';

/** marked-terminal 7 returns a marked extension; its DefinitelyTyped types (written for marked 5) say a Renderer. */
const markedTerminal = declaredMarkedTerminal as unknown as (options?: TerminalRendererOptions) => MarkedExtension;

/** Markdown as the person sees it: as it is (made safe by the stream), or styled (Controlled). */
export type RenderMarkdown = (markdown: string) => string | Controlled;

/** A renderer for a terminal `columns` wide; what it returns ends with one newline. Its styles are its own: the Markdown is made safe first. */
export function terminalMarkdown(columns: number | undefined): RenderMarkdown {
  // A terminal that does not say its width (0 or undefined) gets the customary 80 columns.
  const width = columns !== undefined && columns > 0 ? Math.max(20, columns - 1) : 80;
  const marked = new Marked(markedTerminal({ width, reflowText: true, tab: 2 }));
  return (markdown) => rendered(`${marked.parse(terminalSafe(markdown), { async: false }).replace(/\n+$/, '')}\n`);
}
