/**
 * A guru's attachment limits applied to one question (spec, "Attachment rules"): PDFs over the
 * count or size refuse the question before anything is answered; images and log files over them
 * are skipped, and the answer's note says how many.
 */
import type { AttachmentLimit, GuruSettings } from '../../core/schemas.js';
import { Errors } from '../../core/errors.js';

/** A file as the limits see it. */
export interface Sized {
  readonly name: string;
  readonly bytes: number;
}

/** What is kept of one kind, and how many files were skipped. */
export interface Within<T> {
  readonly kept: readonly T[];
  readonly dropped: number;
}

const MB = 1_000_000;
const KB = 1_000;

/** 10 MB, 1.5 MB, 200 KB, 17 bytes: sizes as DESIGN.md writes the limits. */
export function formatBytes(bytes: number): string {
  const rounded = (value: number) => String(Math.round(value * 10) / 10);
  if (bytes >= MB) return `${rounded(bytes / MB)} MB`;
  if (bytes >= KB) return `${rounded(bytes / KB)} KB`;
  return `${bytes} byte${bytes === 1 ? '' : 's'}`;
}

const counted = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;

/** Files larger than the limit are skipped, then those beyond its count, in the order sent. */
export function withinLimit<T extends Sized>(files: readonly T[], limit: AttachmentLimit): Within<T> {
  const kept = files.filter((file) => file.bytes <= limit.max_bytes).slice(0, limit.count);
  return { kept, dropped: files.length - kept.length };
}

/** The 400 for PDFs over the guru's limits; nothing is answered or stored. */
export function refusePdfsOverLimit(pdfs: readonly Sized[], limit: AttachmentLimit): void {
  if (pdfs.length > limit.count) {
    throw Errors.badAsk(
      limit.count === 0
        ? `This guru takes no PDF files: ${counted(pdfs.length, 'PDF file was', 'PDF files were')} attached. No answer was generated.`
        : `Too many PDF files: ${pdfs.length} attached, this guru takes at most ${counted(limit.count, 'PDF file', 'PDF files')} per question. No answer was generated.`,
    );
  }
  const large = pdfs.find((pdf) => pdf.bytes > limit.max_bytes);
  if (large !== undefined) {
    // Just over the limit, rounded sizes would read the same: then the exact count says it.
    const size = formatBytes(large.bytes) === formatBytes(limit.max_bytes) ? `${large.bytes.toLocaleString('en-US')} bytes` : formatBytes(large.bytes);
    throw Errors.badAsk(
      `The PDF file ${large.name} is ${size}, over this guru's limit of ${formatBytes(limit.max_bytes)} per PDF file. No answer was generated.`,
    );
  }
}

/**
 * Whether a guru's answers read a question's images: `read` with a model that reads images
 * (GURU_LLM_IMAGES) when the guru uses the model; otherwise why not.
 */
export type ImageReading = 'read' | 'no-image-model' | 'guru-without-model';

/** Why images were not read, as the note says it. */
const UNREAD_BECAUSE: Record<Exclude<ImageReading, 'read'>, string> = {
  'no-image-model': 'no language model that reads images is configured',
  'guru-without-model': "this guru's answers do not use the language model (its use_model setting is off)",
};

export interface NoteInput {
  readonly limits: GuruSettings['attachment_limits'];
  readonly droppedImages: number;
  readonly droppedLogs: number;
  /** Images kept, within the limits. */
  readonly keptImages: number;
  readonly imageReading: ImageReading;
}

/**
 * The answer's `attachment_note` (DESIGN.md, "dropped attachments"): how many images and log
 * files were skipped and why, and images that were not read. Null when there is nothing to say.
 */
export function attachmentNote(input: NoteInput): string | null {
  const { limits } = input;
  const takes = (limit: AttachmentLimit, one: string, many: string) =>
    limit.count === 0 ? `this guru takes no ${many}` : `this guru takes at most ${counted(limit.count, one, many)} of up to ${formatBytes(limit.max_bytes)} each`;
  const over = (dropped: number, limit: AttachmentLimit, one: string, many: string) =>
    dropped === 0 ? [] : [`${counted(dropped, one, many)} (${takes(limit, one, many)})`];
  const skipped = [...over(input.droppedImages, limits.images, 'image', 'images'), ...over(input.droppedLogs, limits.log_files, 'log file', 'log files')];
  const sentences: string[] = [];
  if (skipped.length > 0) sentences.push(`Skipped ${skipped.join(' and ')}.`);
  if (input.keptImages > 0 && input.imageReading !== 'read') {
    sentences.push(`${counted(input.keptImages, 'image was', 'images were')} not read: ${UNREAD_BECAUSE[input.imageReading]}.`);
  }
  return sentences.length === 0 ? null : sentences.join(' ');
}

/** The note as the streamed answer starts with it: a quoted Markdown line, then a blank line. */
export const quotedNote = (note: string): string => `> ${note}\n\n`;
