/**
 * The largest ask body a guru's attachment limits allow: the REST answer route sizes its body cap
 * from them, so that a request within the limits is read and one beyond them refused as it comes in.
 */
import type { GuruSettings } from './schemas.js';

type AttachmentLimits = GuruSettings['attachment_limits'];
type AttachmentLimit = AttachmentLimits['images'];

/** Room for everything of a question but its attachments (the caps of src/core/schemas.ts, as JSON). */
const QUESTION_BYTES = 256 * 1024;
/** Per attachment: its name, type and the JSON around them. */
const ITEM_OVERHEAD_BYTES = 1024;
/**
 * JSON writes a log's newlines, tabs and quotes as two-character escapes (other control characters
 * as six); twice its UTF-8 size is room enough for a log of text.
 */
const LOG_JSON_EXPANSION = 2;
const MiB = 1024 * 1024;

const base64Length = (bytes: number): number => Math.ceil(bytes / 3) * 4;

/**
 * The question and options, plus every kind of attachment at its count and size, base64 for
 * images and PDFs, rounded up to whole MiB (80 MiB for the defaults).
 */
export function askBodyCap(limits: AttachmentLimits): number {
  const dataUrls = (limit: AttachmentLimit) => limit.count * (base64Length(limit.max_bytes) + ITEM_OVERHEAD_BYTES);
  const logs = limits.log_files.count * (limits.log_files.max_bytes * LOG_JSON_EXPANSION + ITEM_OVERHEAD_BYTES);
  return Math.ceil((QUESTION_BYTES + dataUrls(limits.images) + dataUrls(limits.pdf_files) + logs) / MiB) * MiB;
}
