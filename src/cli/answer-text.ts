/**
 * Where an answer's text goes as it streams. A pipe or a file gets the
 * Markdown as it is, piece by piece. A terminal gets it rendered (see
 * markdown.ts), a block at a time: a block is shown once the next one begins
 * (markdown-blocks.ts), so the person sees the answer grow paragraph by
 * paragraph while nothing half-formed (an open `**`, half a table) is drawn.
 */
import { MarkdownBlocks } from './markdown-blocks.js';
import type { RenderMarkdown } from './markdown.js';
import { writeText } from './output.js';
import type { OutputStream } from './spec.js';
import type { Controlled } from './terminal-text.js';

export interface AnswerText {
  write(delta: string): void;
  /** Shows what is left (all of `content` when nothing streamed) and ends on a new line. */
  end(content: string): Promise<void>;
  /** Whether the text shown stops mid-line; a line of its own then needs a newline first. */
  endsMidLine(): boolean;
}

/** The Markdown as it comes. */
export function plainAnswerText(stdout: OutputStream): AnswerText {
  let shown = '';
  const show = (text: string) => {
    shown = text === '' ? shown : text;
    stdout.write(text);
  };
  let streamed = false;
  return {
    write(delta) {
      streamed = true;
      show(delta);
    },
    async end(content) {
      if (!streamed) show(content);
      if (!shown.endsWith('\n')) stdout.write('\n');
    },
    endsMidLine: () => shown !== '' && !shown.endsWith('\n'),
  };
}

/** The renderer for `stdout`, loaded at once (in parallel with the question); undefined if it cannot load. */
export function loadRenderer(stdout: OutputStream): Promise<RenderMarkdown | undefined> {
  return import('./markdown.js').then(
    ({ terminalMarkdown }) => terminalMarkdown(stdout.columns),
    () => undefined,
  );
}

/** Rendered block by block; should the renderer be missing or fail, the block's Markdown as it is. */
export function renderedAnswerText(stdout: OutputStream, renderer: Promise<RenderMarkdown | undefined>): AnswerText {
  const blocks = new MarkdownBlocks();
  let shownAny = false;
  let queue = Promise.resolve();
  const show = (markdown: string) => {
    if (markdown.trim() === '') return;
    queue = queue.then(async () => {
      const render = await renderer;
      let text: string | Controlled;
      try {
        text = render === undefined ? `${markdown.trimEnd()}\n` : render(markdown);
      } catch {
        text = `${markdown.trimEnd()}\n`;
      }
      writeText(stdout, shownAny ? '\n' : '', text);
      shownAny = true;
    });
  };
  let streamed = false;
  return {
    write(delta) {
      streamed = true;
      show(blocks.push(delta));
    },
    async end(content) {
      show(streamed ? blocks.flush() : content);
      await queue;
    },
    endsMidLine: () => false,
  };
}
