/**
 * Cuts streamed Markdown into blocks that render on their own as they would
 * in the whole text, so that a terminal can show an answer block by block as
 * it is written. A cut goes before a line that starts a new block: after a
 * blank line, outside a code fence, not indented (a list item's continuation)
 * and not the next item of a list (a loose list stays one list, numbered as one).
 * A line counts once it is complete, so that "1" never turns out to be "1.".
 */

const FENCE = /^ {0,3}(```|~~~)/;
const LIST_ITEM = /^([-*+]|\d{1,9}[.)])(\s|$)/;

export class MarkdownBlocks {
  #pending = '';

  /** Adds streamed text; answers the blocks it completed ('' when none), keeping the unfinished rest. */
  push(delta: string): string {
    this.#pending += delta;
    const cut = lastCut(this.#pending);
    const complete = this.#pending.slice(0, cut);
    this.#pending = this.#pending.slice(cut);
    return complete;
  }

  /** The text not yet handed out, at the end of the stream. */
  flush(): string {
    const rest = this.#pending;
    this.#pending = '';
    return rest;
  }
}

/** Offset of the last line in `text` that starts a new block; 0 when there is none. */
function lastCut(text: string): number {
  let cut = 0;
  let inFence = false;
  let inList = false;
  let afterBlank = true;
  let start = 0;
  for (let end = text.indexOf('\n'); end !== -1; start = end + 1, end = text.indexOf('\n', start)) {
    const line = text.slice(start, end);
    if (!inFence && afterBlank && /^\S/.test(line)) {
      const listItem = LIST_ITEM.test(line);
      if (start > 0 && !(listItem && inList)) cut = start;
      inList = listItem;
    }
    if (FENCE.test(line)) inFence = !inFence;
    afterBlank = line.trim() === '';
  }
  return cut;
}
