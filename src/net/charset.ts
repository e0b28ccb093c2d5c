/**
 * Turns a response body into text. The encoding comes from a byte order mark, else the
 * Content-Type charset, else (HTML and XML only) a declaration in the first 4 KiB, else UTF-8.
 * A byte order mark wins over the header as in the WHATWG Encoding standard: it is never wrong
 * by accident, while servers often announce a default charset for every file.
 */

const PRESCAN_BYTES = 4096;

const META_CHARSET = /<meta\s[^>]*?charset\s*=\s*["']?\s*([\w.:-]+)/i;
const XML_ENCODING = /^\s*<\?xml\s[^>]*?encoding\s*=\s*["']([\w.:-]+)["']/;

function bomEncoding(body: Uint8Array): string | undefined {
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return 'utf-8';
  if (body[0] === 0xfe && body[1] === 0xff) return 'utf-16be';
  if (body[0] === 0xff && body[1] === 0xfe) return 'utf-16le';
  return undefined;
}

/** The `charset` parameter of a Content-Type header value. */
export function headerCharset(contentType: string | undefined): string | undefined {
  return contentType === undefined ? undefined : /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType)?.[1];
}

function isMarkup(mimeType: string): boolean {
  return mimeType === '' || mimeType === 'text/html' || mimeType === 'application/xhtml+xml' || mimeType.endsWith('/xml') || mimeType.endsWith('+xml');
}

function declaredCharset(body: Buffer): string | undefined {
  const head = body.subarray(0, PRESCAN_BYTES).toString('latin1');
  const label = XML_ENCODING.exec(head)?.[1] ?? META_CHARSET.exec(head)?.[1];
  // A declaration readable as ASCII cannot be telling the truth about UTF-16.
  return label !== undefined && /^utf-?16/i.test(label) ? 'utf-8' : label;
}

/** A decoder for `label`, or undefined when the label names no encoding TextDecoder knows. */
function decoderFor(label: string | undefined): TextDecoder | undefined {
  if (label === undefined) return undefined;
  try {
    return new TextDecoder(label.trim());
  } catch {
    return undefined;
  }
}

/** Bytes 0x80–0x9F of windows-1252 (WHATWG index); the five unassigned ones stay C1 controls. */
const WINDOWS_1252_HIGH = '€\x81‚ƒ„…†‡ˆ‰Š‹Œ\x8DŽ\x8F\x90‘’“”•–—˜™š›œ\x9DžŸ';

/**
 * Node 20's TextDecoder decodes windows-1252 (the label of latin1, iso-8859-1 and ascii too) as
 * ISO-8859-1, turning 0x80–0x9F into C1 controls instead of € – “ ” and the like.
 */
function decodeWindows1252(body: Buffer): string {
  return body.toString('latin1').replace(/[\x80-\x9f]/g, (c1) => WINDOWS_1252_HIGH[c1.charCodeAt(0) - 0x80] ?? c1);
}

export function decodeBody(body: Buffer, contentType: string | undefined, mimeType: string): string {
  const decoder =
    decoderFor(bomEncoding(body)) ??
    decoderFor(headerCharset(contentType)) ??
    (isMarkup(mimeType) ? decoderFor(declaredCharset(body)) : undefined) ??
    new TextDecoder('utf-8');
  return decoder.encoding === 'windows-1252' ? decodeWindows1252(body) : decoder.decode(body);
}
