/**
 * The links of an HTML page, found by one scan of its text rather than a DOM parse: a crawl reads
 * thousands of pages and needs nothing from them but `<a href>`, `<area href>` and `<base href>`.
 * Comments, scripts and styles are passed over, so links quoted there are not taken for links.
 */

export interface PageLinks {
  /** The `<base href>` of the page, as written, if it has one. */
  readonly base: string | undefined;
  /** `href` values as written (entities decoded), in document order, repeats included. */
  readonly hrefs: readonly string[];
}

// One pass: a comment, a script or style element with its content, or an a/area/base start tag
// with its attributes (quoted values may hold '>').
const SCAN = /<!--[\s\S]*?(?:-->|$)|<(script|style)\b(?:[^>"']|"[^"]*"|'[^']*')*>[\s\S]*?(?:<\/\1\s*>|$)|<(a|area|base)\s((?:[^>"']|"[^"]*"|'[^']*')*)>/gi;

const HREF = /(?:^|[\s"'])href\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/i;

export function scanLinks(html: string): PageLinks {
  let base: string | undefined;
  const hrefs: string[] = [];
  for (const match of html.matchAll(SCAN)) {
    const tag = match[2];
    if (tag === undefined) continue;
    const attribute = HREF.exec(match[3]!);
    if (attribute === null) continue;
    const href = decodeEntities((attribute[1] ?? attribute[2] ?? attribute[3]!).trim());
    if (tag.toLowerCase() === 'base') {
      // Only the first <base> counts.
      base ??= href;
    } else if (href !== '') {
      hrefs.push(href);
    }
  }
  return { base, hrefs };
}

/** Whether a body served without a Content-Type is an HTML document. */
export function looksLikeHtml(text: string): boolean {
  return /^\s*(?:<!doctype html|<html[\s>]|<head[\s>]|<body[\s>])/i.test(text.slice(0, 1024));
}

const NAMED: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

/** The character references an attribute value may hold; names beyond the common few stay as written. */
export function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(/&(?:#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6})|(amp|lt|gt|quot|apos|nbsp));?/g, (whole, decimal?: string, hex?: string, name?: string) => {
    if (name !== undefined) return NAMED[name] ?? whole;
    const code = decimal !== undefined ? Number(decimal) : Number.parseInt(hex!, 16);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}
