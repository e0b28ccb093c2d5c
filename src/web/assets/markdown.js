// Markdown from the knowledge base and the model, rendered without letting any of it run:
// raw HTML is shown as text, and links and images keep only http, https and mailto targets.
import { Marked } from './vendor/marked.js';

const ENTITIES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (text) => String(text).replace(/[&<>"']/g, (character) => ENTITIES[character]);

const SAFE_PROTOCOLS = new Set(['http:', 'https:', 'mailto:']);

/**
 * The link when it is absolute and safe to follow, else null. A relative link belongs to the page
 * the knowledge came from, not to this server, so it stays text.
 */
export function safeHref(href) {
  try {
    const url = new URL(href);
    return SAFE_PROTOCOLS.has(url.protocol) ? url.href : null;
  } catch {
    return null;
  }
}

const marked = new Marked({
  gfm: true,
  renderer: {
    html(token) {
      return escapeHtml(token.text);
    },
    link({ href, title, tokens }) {
      const text = this.parser.parseInline(tokens);
      const safe = safeHref(href);
      if (safe === null) return text;
      const titled = title ? ` title="${escapeHtml(title)}"` : '';
      return `<a href="${escapeHtml(safe)}"${titled} rel="noopener noreferrer" target="_blank">${text}</a>`;
    },
    // Images are shown as links: the page loads nothing from other sites.
    image({ href, text }) {
      const safe = safeHref(href);
      if (safe === null) return escapeHtml(text);
      return `<a href="${escapeHtml(safe)}" rel="noopener noreferrer" target="_blank">${escapeHtml(text || safe)}</a>`;
    },
  },
});

/** Renders `text` into `element`. */
export function renderMarkdown(element, text) {
  element.innerHTML = marked.parse(text, { async: false });
  return element;
}
