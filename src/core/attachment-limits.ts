/**
 * How many attachments of each kind one question may carry, and how large each may be: per guru,
 * with the defaults DESIGN.md fixes. The REST answer route sizes its body cap from them.
 */

/** Attachments of one kind: at most `count` files of at most `max_bytes` each (decoded bytes; UTF-8 bytes for logs). */
export interface AttachmentLimit {
  readonly count: number;
  readonly max_bytes: number;
}

export interface AttachmentLimits {
  readonly images: AttachmentLimit;
  readonly log_files: AttachmentLimit;
  readonly pdf_files: AttachmentLimit;
}

export type AttachmentKind = keyof AttachmentLimits;

/** MB as DESIGN.md counts it. */
const MB = 1_000_000;

export const DEFAULT_ATTACHMENT_LIMITS: AttachmentLimits = {
  images: { count: 5, max_bytes: 5 * MB },
  log_files: { count: 5, max_bytes: 1 * MB },
  pdf_files: { count: 3, max_bytes: 10 * MB },
};

/** Room for everything of a question but its attachments (the caps of src/core/schemas.ts, as JSON). */
const QUESTION_BYTES = 256 * 1024;
/** Per attachment: its name, type and the JSON around them. */
const ITEM_OVERHEAD_BYTES = 1024;
/**
 * JSON writes a log's newlines, tabs and quotes as two-character escapes (other control characters
 * as six); twice its UTF-8 size is room enough for a log of text.
 */
const LOG_JSON_EXPANSION = 2;

/** Base64 length of `bytes` bytes. */
export const base64Length = (bytes: number): number => Math.ceil(bytes / 3) * 4;

const MiB = 1024 * 1024;

/**
 * The largest ask body a guru's limits allow: the question and options, plus every kind of
 * attachment at its count and size, base64 for images and PDFs (with the data URL's prefix),
 * rounded up to whole MiB (80 MiB for the defaults).
 */
export function askBodyCap(limits: AttachmentLimits): number {
  const dataUrl = (limit: AttachmentLimit) => limit.count * (base64Length(limit.max_bytes) + ITEM_OVERHEAD_BYTES);
  const logs = limits.log_files.count * (limits.log_files.max_bytes * LOG_JSON_EXPANSION + ITEM_OVERHEAD_BYTES);
  return Math.ceil((QUESTION_BYTES + dataUrl(limits.images) + dataUrl(limits.pdf_files) + logs) / MiB) * MiB;
}
