// Crawl: discover a site's pages from a start URL, watch the count grow, stop, then add what was found.
import { getJson, guruApi } from '../api.js';
import { busy, field, fill, h, notice } from '../dom.js';

const POLL_MS = 1000;
/** The spec's cap on URLs of one kind in one request. */
const URLS_PER_REQUEST = 1500;
const CRAWL = 'guru-mcp.crawl';

export async function render(main) {
  const status = notice();
  const url = h('input', { type: 'url', name: 'url', required: true, placeholder: 'https://docs.example.com/' });
  const start = h('button', { type: 'submit' }, 'Start crawl');
  const form = h('form', { class: 'card' }, field('Start URL', url, 'Pages under this address are discovered; nothing is added until you say so.'),
    h('div', { class: 'actions' }, start));
  const progress = h('section', { class: 'card', 'aria-label': 'Crawl progress', hidden: true });
  let timer;
  let stopped = false;

  function show(crawl) {
    const count = crawl.discovered_urls.length;
    const stop = h('button', { type: 'button' }, 'Stop crawl');
    stop.addEventListener('click', () => busy(stop, async () => {
      try {
        show(await getJson(guruApi(`/crawl/${crawl.id}/stop/`), { method: 'POST' }));
      } catch (error) {
        status.error(error);
      }
    }));
    const add = h('button', { type: 'button' }, `Add ${count} page${count === 1 ? '' : 's'} as sources`);
    add.addEventListener('click', () => busy(add, async () => {
      try {
        let added = 0;
        for (let index = 0; index < count; index += URLS_PER_REQUEST) {
          const created = await getJson(guruApi('/data-sources/'), { method: 'POST', json: { website_urls: crawl.discovered_urls.slice(index, index + URLS_PER_REQUEST) } });
          added += created.length;
        }
        status.info(`Added ${added} page${added === 1 ? '' : 's'}; see Sources for their processing.`);
      } catch (error) {
        status.error(error);
      }
    }));
    const running = crawl.status === 'RUNNING';
    progress.hidden = false;
    fill(progress,
      h('h2', {}, `Crawl of ${crawl.url}`),
      h('p', { class: 'crawl-count', 'aria-live': 'polite' }, h('span', { class: 'badge', 'data-status': crawl.status }, crawl.status), ` ${count} page${count === 1 ? '' : 's'} discovered`),
      crawl.error_message ? h('p', { class: 'notice error', role: 'alert' }, crawl.error_message) : null,
      h('div', { class: 'actions' }, running ? stop : null, !running && count > 0 ? add : null),
      h('details', {}, h('summary', {}, 'Discovered pages'), h('ul', { class: 'plain urls' }, crawl.discovered_urls.map((page) => h('li', {}, page)))));
    clearTimeout(timer);
    if (running && !stopped) timer = setTimeout(() => poll(crawl.id), POLL_MS);
  }

  async function poll(id) {
    try {
      show(await getJson(guruApi(`/crawl/${id}/status/`)));
    } catch (error) {
      status.error(error);
    }
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    busy(start, async () => {
      try {
        status.clear();
        const crawl = await getJson(guruApi('/crawl/start/'), { method: 'POST', json: { url: url.value.trim() } });
        sessionStorage.setItem(CRAWL, String(crawl.id));
        show(crawl);
      } catch (error) {
        status.error(error);
      }
    });
  });

  main.append(h('h1', {}, 'Crawl'), status.element, form, progress);
  const last = sessionStorage.getItem(CRAWL);
  if (last !== null) await poll(last);
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
