/**
 * The one HTML → Markdown converter of the ingestion pipeline (web pages,
 * Confluence and Zendesk bodies, Word documents): ATX headings, fenced code
 * with its language, GitHub-flavoured tables and strikethrough.
 */
import { createRequire } from 'node:module';
import TurndownService from 'turndown';

interface GfmPlugin {
  readonly gfm: TurndownService.Plugin;
}
// The plugin ships CommonJS without type declarations.
const { gfm } = createRequire(import.meta.url)('@joplin/turndown-plugin-gfm') as GfmPlugin;

const LANGUAGE = /(?:^|\s)(?:language|lang)-([\w+#-]+)/;

function createConverter(): TurndownService {
  const service = new TurndownService({
    headingStyle: 'atx',
    codeBlockStyle: 'fenced',
    bulletListMarker: '-',
    emDelimiter: '_',
  });
  service.use(gfm);
  service.remove(['script', 'style', 'noscript', 'template', 'iframe', 'form', 'button']);
  // Fenced code keeps the language named by a class on <pre> or <code>.
  service.addRule('fencedCodeWithLanguage', {
    filter: (node) => node.nodeName === 'PRE',
    replacement: (_content, node) => {
      const element = node;
      // The whole block's text: a <pre> may hold several <code> and other inline elements.
      const code = element.querySelector('code');
      const language = LANGUAGE.exec(`${code?.getAttribute('class') ?? ''} ${element.getAttribute('class') ?? ''}`)?.[1] ?? '';
      const text = (element.textContent ?? '').replace(/\n$/, '');
      const longestRun = Math.max(2, ...[...text.matchAll(/`+/g)].map((match) => match[0].length));
      const fence = '`'.repeat(longestRun + 1);
      return `\n\n${fence}${language}\n${text}\n${fence}\n\n`;
    },
  });
  return service;
}

let converter: TurndownService | undefined;

export function htmlToMarkdown(html: string | TurndownService.Node): string {
  converter ??= createConverter();
  return converter
    .turndown(html)
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
