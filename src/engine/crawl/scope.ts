/**
 * Which URLs a crawl may visit and under which form it compares and reports them. Both the start
 * URL and every link are brought to one form (lower-case scheme and host, no default port, no
 * fragment, no credentials, no query when queries are ignored), so that "begins with the start
 * URL" is a plain string comparison.
 */

/** Paths that hold no content worth indexing (the spec's list). */
const SKIPPED_DIRECTORIES = ['/feed/', '/rss/', '/static/', '/assets/', '/media/', '/wp-admin/', '/wp-json/', '/_static/', '/_sources/'];

/** Files that are not web pages: images, documents, styles, scripts, fonts, archives, media, binaries, data. */
const SKIPPED_EXTENSIONS = new Set([
  ...['png', 'jpg', 'jpeg', 'jpe', 'gif', 'svg', 'svgz', 'webp', 'avif', 'ico', 'bmp', 'tif', 'tiff', 'heic', 'heif', 'psd'],
  ...['pdf', 'doc', 'docx', 'xls', 'xlsx', 'ppt', 'pptx', 'odt', 'ods', 'odp', 'rtf', 'epub', 'ps', 'eps'],
  ...['css', 'js', 'mjs', 'cjs', 'map', 'json', 'xml', 'rss', 'atom', 'csv', 'tsv', 'wasm'],
  ...['woff', 'woff2', 'ttf', 'otf', 'eot'],
  ...['zip', 'tar', 'gz', 'tgz', 'bz2', 'tbz2', 'xz', 'txz', 'zst', '7z', 'rar', 'jar', 'war'],
  ...['mp3', 'mp4', 'm4a', 'm4v', 'wav', 'ogg', 'oga', 'ogv', 'opus', 'flac', 'aac', 'webm', 'avi', 'mov', 'mkv', 'wmv', 'flv', 'mpg', 'mpeg', 'swf'],
  ...['exe', 'msi', 'dmg', 'pkg', 'deb', 'rpm', 'apk', 'iso', 'img', 'bin', 'dll', 'so'],
]);

/** The start URL as given, if it is an absolute http(s) URL with a host. */
export function parseStartUrl(input: unknown): URL | undefined {
  if (typeof input !== 'string') return undefined;
  let url: URL;
  try {
    url = new URL(input.trim());
  } catch {
    return undefined;
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '') return undefined;
  return url;
}

export class CrawlScope {
  /** The start URL in canonical form: every URL of the crawl begins with it. */
  readonly prefix: string;
  readonly origin: string;
  readonly ignoreQueryParams: boolean;
  readonly #prefixPath: string;

  constructor(start: URL, ignoreQueryParams: boolean) {
    this.ignoreQueryParams = ignoreQueryParams;
    const canonical = this.canonical(start)!;
    this.prefix = canonical.href;
    this.origin = canonical.origin;
    this.#prefixPath = canonical.pathname.toLowerCase();
  }

  /** `href` resolved against `base` in canonical form; undefined when it is not an http(s) URL. */
  canonical(href: string | URL, base?: URL): URL | undefined {
    let url: URL;
    try {
      url = new URL(href, base);
    } catch {
      return undefined;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    url.hash = '';
    url.username = '';
    url.password = '';
    // A bare "?" goes too: the page is the same with or without it.
    if (this.ignoreQueryParams || url.search === '') url.search = '';
    return url;
  }

  /** Whether a canonical URL belongs to the crawl: under the prefix, not a skipped path or file type. */
  admits(url: URL): boolean {
    const { href } = url;
    if (href === this.prefix) return true;
    if (!href.startsWith(this.prefix)) return false;
    const path = url.pathname.toLowerCase();
    // What the start URL itself lies under was asked for, e.g. a crawl of https://x/assets/guide/.
    if (SKIPPED_DIRECTORIES.some((directory) => path.includes(directory) && !this.#prefixPath.includes(directory))) return false;
    return !SKIPPED_EXTENSIONS.has(extensionOf(path));
  }
}

/** The extension of the path's last segment, lower-case, '' if none. */
function extensionOf(path: string): string {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  return dot <= 0 ? '' : name.slice(dot + 1);
}
