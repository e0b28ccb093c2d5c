/**
 * An attachment's text as passages to search: a PDF's Markdown by its structure (the ingestion's
 * chunker, so each passage cites its page), a log file by its lines, whole lines packed into
 * passages of about the chunker's size, each headed by the lines it holds ("Lines 120-139") so
 * that a quoted passage says where in the log it is, and fenced as code so that it is quoted line
 * by line, as written, never read as Markdown.
 */
import { chunkMarkdown, DEFAULT_MAX_CHARS, DEFAULT_TARGET_CHARS } from '../ingest/chunker.js';
import type { NewChunk } from '../store/chunks.js';
import { backtickFenceFor } from '../text/fences.js';

export type TextAttachmentKind = 'LOG' | 'PDF';

/** An attachment whose text is context: a log file as sent, a PDF as the Markdown extracted from it. */
export interface TextAttachment {
  readonly kind: TextAttachmentKind;
  readonly name: string;
  readonly text: string;
}

export function passagesOf(attachment: TextAttachment): NewChunk[] {
  return attachment.kind === 'PDF' ? chunkMarkdown(attachment.text, { title: attachment.name }) : logPassages(attachment.text);
}

function logPassages(text: string): NewChunk[] {
  const lines = text
    .replace(/\r\n?/g, '\n')
    .replace(/\n$/, '') // a final line break ends the last line; it does not start another
    .split('\n')
    .flatMap((line, index) => splitLongLine(line).map((piece) => ({ piece, number: index + 1 })));
  const passages: NewChunk[] = [];
  let held: typeof lines = [];
  let size = 0;
  const finish = () => {
    const [first, last] = [held[0], held.at(-1)];
    if (first !== undefined && last !== undefined && held.some(({ piece }) => piece.trim() !== '')) {
      const where = first.number === last.number ? `Line ${first.number}` : `Lines ${first.number}-${last.number}`;
      passages.push({ position: passages.length, headings: [where], body: fenced(held.map(({ piece }) => piece).join('\n')) });
    }
    held = [];
    size = 0;
  };
  for (const line of lines) {
    if (size > 0 && size + line.piece.length > DEFAULT_TARGET_CHARS) finish();
    held.push(line);
    size += line.piece.length + 1;
  }
  finish();
  return passages;
}

/** A line longer than a passage may be (minified JSON, a stack trace on one line) in pieces. */
function splitLongLine(line: string): string[] {
  if (line.length <= DEFAULT_MAX_CHARS) return [line];
  const pieces: string[] = [];
  for (let at = 0; at < line.length; at += DEFAULT_MAX_CHARS) pieces.push(line.slice(at, at + DEFAULT_MAX_CHARS));
  return pieces;
}

/** The lines as a fenced code block, its fence longer than any run of backticks in them. */
function fenced(text: string): string {
  const fence = backtickFenceFor(text);
  return `${fence}\n${text}\n${fence}`;
}
