/**
 * Data URLs as ask takes them (`data:<mime>;base64,<payload>`), read strictly: a MIME type of the
 * form type/subtype, then canonical base64 (padded, no white space). Anything else is refused with
 * a message that names the file, rather than half-decoded.
 */
import { Errors } from '../../core/errors.js';

export interface DataUrl {
  readonly mime: string;
  /** The payload as it was sent, still base64. */
  readonly base64: string;
}

const DATA_URL = /^data:([a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+)(?:;[a-z0-9_.-]+=[^;,]*)*;base64,/i;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Splits a data URL into its MIME type and payload; a 400 naming `what` when it is not one. */
export function parseDataUrl(value: string, what: string): DataUrl {
  const match = DATA_URL.exec(value);
  if (match === null) {
    throw Errors.badAsk(`${what} is not a data URL: expected data:<mime type>;base64,<base64 data>`);
  }
  const base64 = value.slice(match[0].length);
  if (base64.length === 0) throw Errors.badAsk(`${what} is empty`);
  if (base64.length % 4 !== 0 || !BASE64.test(base64)) {
    throw Errors.badAsk(`${what} does not hold valid base64 data (only A-Z, a-z, 0-9, + and /, padded with = to a multiple of 4 characters)`);
  }
  return { mime: (match[1] as string).toLowerCase(), base64 };
}

/** The number of bytes the payload decodes to, without decoding it. */
export function decodedSize(url: DataUrl): number {
  const padding = url.base64.endsWith('==') ? 2 : url.base64.endsWith('=') ? 1 : 0;
  return (url.base64.length / 4) * 3 - padding;
}

export function decode(url: DataUrl): Buffer {
  return Buffer.from(url.base64, 'base64');
}
