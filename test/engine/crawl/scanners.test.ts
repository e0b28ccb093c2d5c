import { describe, expect, it } from 'vitest';
import { decodeEntities, scanLinks } from '../../../src/engine/crawl/links.js';
import { parseRobots } from '../../../src/engine/crawl/robots.js';
import { CrawlScope, parseStartUrl } from '../../../src/engine/crawl/scope.js';
import { readSitemap } from '../../../src/engine/crawl/sitemap.js';

describe('scanLinks', () => {
  it('stops at an unterminated comment or script instead of reading links out of it', () => {
    expect(scanLinks('<a href="/one">1</a><!-- <a href="/hidden">').hrefs).toEqual(['/one']);
    expect(scanLinks('<a href="/one">1</a><script>document.write(\'<a href="/hidden">\')').hrefs).toEqual(['/one']);
  });

  it('keeps the first <base href> only', () => {
    expect(scanLinks('<base href="/a/"><base href="/b/"><a href="x">x</a>')).toEqual({ base: '/a/', hrefs: ['x'] });
  });

  it('decodes character references in attribute values', () => {
    expect(decodeEntities('/q?a=1&amp;b=2&#38;c=&#x33;&unknown;')).toBe('/q?a=1&b=2&c=3&unknown;');
  });
});

describe('readSitemap', () => {
  it('reads namespaced entries and tells an index from a urlset, and nothing from other XML', () => {
    expect(readSitemap('<sm:urlset xmlns:sm="x"><sm:url><sm:loc>https://a/1</sm:loc></sm:url></sm:urlset>')).toEqual({
      kind: 'urlset',
      locations: ['https://a/1'],
    });
    expect(readSitemap('<sitemapindex><sitemap><loc>https://a/s.xml</loc></sitemap></sitemapindex>')).toEqual({
      kind: 'index',
      locations: ['https://a/s.xml'],
    });
    expect(readSitemap('<rss><channel><link>https://a/</link></channel></rss>')).toBeUndefined();
  });
});

describe('parseRobots', () => {
  it('caps a long Crawl-delay and resolves relative Sitemap lines', () => {
    const rules = parseRobots('https://a.example/robots.txt', 'User-agent: *\nCrawl-delay: 120\nSitemap: /s.xml\nSitemap: https://cdn.example/s2.xml\n');
    expect(rules.crawlDelayMs).toBe(5_000);
    expect(rules.sitemaps).toEqual(['https://a.example/s.xml', 'https://cdn.example/s2.xml']);
    expect(rules.allows('https://a.example/anything')).toBe(true);
  });
});

describe('CrawlScope', () => {
  it('drops credentials, fragments and default ports, and a bare "?" even when queries are kept', () => {
    const scope = new CrawlScope(parseStartUrl('https://user:pw@Docs.Example.com:443/Guide/')!, false);
    expect(scope.prefix).toBe('https://docs.example.com/Guide/');
    expect(scope.canonical('intro?#top', new URL(scope.prefix))?.href).toBe('https://docs.example.com/Guide/intro');
    expect(scope.canonical('intro?lang=en#top', new URL(scope.prefix))?.href).toBe('https://docs.example.com/Guide/intro?lang=en');
    // Paths are case-sensitive: another case is another page, outside the prefix.
    expect(scope.admits(scope.canonical('https://docs.example.com/guide/x')!)).toBe(false);
    expect(scope.admits(scope.canonical('http://docs.example.com/Guide/x')!)).toBe(false);
  });
});
