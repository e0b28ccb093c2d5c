/**
 * Confluence's storage format (XHTML with `ac:` and `ri:` macros) as plain HTML, for the one
 * HTML → Markdown converter (markdown.ts).
 */
import { parseHTML } from 'linkedom';

const VOID_ELEMENTS = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track', 'wbr']);
// Quoted and unquoted values exclude each other, so a long tag cannot make the match backtrack exponentially.
const SELF_CLOSING = /<([A-Za-z][\w:-]*)((?:\s+[^\s/>=]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'=<>`]+))?)*)\s*\/>/g;
const ADMONITIONS: Readonly<Record<string, string>> = { info: 'Info', note: 'Note', warning: 'Warning', tip: 'Tip', panel: '' };
const CODE_MACROS = new Set(['code', 'noformat']);


/**
 * Storage format → plain HTML for htmlToMarkdown: code macros become `<pre><code>`, info, note,
 * warning, tip and panel macros blockquotes, links their text; other macros keep only their
 * rich-text body, and every other `ac:`/`ri:` element is unwrapped.
 */
export function storageToHtml(storage: string): string {
  // The HTML parser neither reads CDATA sections nor self-closing tags of unknown elements.
  const html = storage
    .replace(/<!\[CDATA\[([\s\S]*?)\]\]>/g, (_, text: string) => escapeHtml(text))
    .replace(SELF_CLOSING, (_, name: string, attributes: string) =>
      VOID_ELEMENTS.has(name.toLowerCase()) ? `<${name}${attributes}>` : `<${name}${attributes}></${name}>`,
    );
  const { document } = parseHTML(`<!doctype html><html><head></head><body>${html}</body></html>`);
  const body = document.body;
  const all = (name: string) => Array.from(body.querySelectorAll('*')).filter((element) => element.localName === name);

  // Innermost first, so a macro inside another's body is already plain HTML when the outer one is rewritten.
  for (const macro of [...all('ac:structured-macro'), ...all('ac:macro')].reverse()) {
    const name = (macro.getAttribute('ac:name') ?? '').toLowerCase();
    const parameter = (key: string) => child(macro, 'ac:parameter', key)?.textContent?.trim() || undefined;
    const richBody = child(macro, 'ac:rich-text-body');
    if (CODE_MACROS.has(name)) {
      const pre = document.createElement('pre');
      const code = document.createElement('code');
      const language = name === 'code' ? parameter('language') : undefined;
      if (language) code.setAttribute('class', `language-${language.toLowerCase()}`);
      code.textContent = child(macro, 'ac:plain-text-body')?.textContent ?? '';
      pre.appendChild(code);
      macro.replaceWith(pre);
    } else if (name in ADMONITIONS) {
      const quote = document.createElement('blockquote');
      const label = [ADMONITIONS[name], parameter('title')].filter(Boolean).join(': ');
      if (label) {
        const heading = document.createElement('p');
        const strong = document.createElement('strong');
        strong.textContent = label;
        heading.appendChild(strong);
        quote.appendChild(heading);
      }
      if (richBody) quote.append(...Array.from(richBody.childNodes));
      macro.replaceWith(quote);
    } else if (name === 'expand' && richBody) {
      const title = parameter('title');
      const heading = document.createElement('p');
      if (title) {
        const strong = document.createElement('strong');
        strong.textContent = title;
        heading.appendChild(strong);
      }
      macro.replaceWith(...(title ? [heading] : []), ...Array.from(richBody.childNodes));
    } else if (richBody) {
      macro.replaceWith(...Array.from(richBody.childNodes));
    } else {
      macro.remove();
    }
  }

  for (const link of all('ac:link')) {
    const target = child(link, 'ri:url')?.getAttribute('ri:value');
    const text =
      child(link, 'ac:link-body')?.textContent?.trim() ||
      child(link, 'ac:plain-text-link-body')?.textContent?.trim() ||
      child(link, 'ri:page')?.getAttribute('ri:content-title') ||
      child(link, 'ri:blog-post')?.getAttribute('ri:content-title') ||
      child(link, 'ri:attachment')?.getAttribute('ri:filename') ||
      target ||
      '';
    if (target) {
      const anchor = document.createElement('a');
      anchor.setAttribute('href', target);
      anchor.textContent = text;
      link.replaceWith(anchor);
    } else {
      link.replaceWith(document.createTextNode(text));
    }
  }
  for (const image of all('ac:image')) {
    const source = child(image, 'ri:url')?.getAttribute('ri:value');
    if (source) {
      const img = document.createElement('img');
      img.setAttribute('src', source);
      img.setAttribute('alt', image.getAttribute('ac:alt') ?? '');
      image.replaceWith(img);
    } else {
      image.remove();
    }
  }
  for (const task of all('ac:task')) {
    const item = document.createElement('li');
    const box = document.createElement('input');
    box.setAttribute('type', 'checkbox');
    if (child(task, 'ac:task-status')?.textContent?.trim() === 'complete') box.setAttribute('checked', '');
    item.append(box, ...Array.from(child(task, 'ac:task-body')?.childNodes ?? []));
    task.replaceWith(item);
  }
  for (const list of all('ac:task-list')) {
    const ul = document.createElement('ul');
    ul.append(...Array.from(list.childNodes));
    list.replaceWith(ul);
  }
  for (const time of Array.from(body.querySelectorAll('time'))) {
    if (!time.textContent?.trim()) time.replaceWith(document.createTextNode(time.getAttribute('datetime') ?? ''));
  }
  for (const element of Array.from(body.querySelectorAll('*')).reverse()) {
    const name = element.localName;
    if (name === 'ac:parameter' || name === 'ac:emoticon' || name === 'ac:placeholder' || name.startsWith('ri:')) element.remove();
    else if (name.startsWith('ac:')) element.replaceWith(...Array.from(element.childNodes));
  }
  return body.innerHTML;
}

/** The first direct child named `name` (and, when given, with `ac:name="key"`). */
function child(parent: Element, name: string, key?: string): Element | undefined {
  for (const element of Array.from(parent.children)) {
    if (element.localName === name && (key === undefined || element.getAttribute('ac:name') === key)) return element;
  }
  return undefined;
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
