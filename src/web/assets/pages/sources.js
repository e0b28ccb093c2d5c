// Sources: the listing with live statuses and paging, adding URLs and texts, uploading
// documents, reindexing, deleting (after confirmation), and the integrations whose tokens are never shown again.
import { getJson, guruApi, request } from '../api.js';
import { busy, confirmedAction, field, fill, formatDate, h, notice } from '../dom.js';

const PAGE_SIZE = 20;
const POLL_MS = 1500;
const URL_KINDS = [
  ['website_urls', 'Web pages'],
  ['youtube_urls', 'YouTube videos'],
  ['jira_urls', 'Jira issues'],
  ['zendesk_urls', 'Zendesk tickets'],
  ['confluence_urls', 'Confluence pages'],
];

const labelsOf = (text) => text.split(',').map((label) => label.trim()).filter(Boolean);

export async function render(main) {
  const status = notice();
  let page = 1;
  let timer;
  let stopped = false;

  // ---- listing
  const rows = h('tbody');
  const summary = h('p', { class: 'muted', 'aria-live': 'polite' });
  const previous = h('button', { type: 'button', class: 'quiet' }, 'Previous page');
  const next = h('button', { type: 'button', class: 'quiet' }, 'Next page');
  const reindex = h('button', { type: 'button' }, 'Reindex selected');
  const table = h('table', { class: 'sources' },
    h('caption', { class: 'visually-hidden' }, 'Data sources'),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, 'Select')), h('th', { scope: 'col' }, 'Source'),
      h('th', { scope: 'col' }, 'Type'), h('th', { scope: 'col' }, 'Status'), h('th', { scope: 'col' }, 'Added'))),
    rows);

  function statusCell(source) {
    const text = { NOT_PROCESSED: 'Processing', SUCCESS: 'Ready', FAIL: 'Failed' }[source.status] ?? source.status;
    return h('td', { class: `status ${source.status.toLowerCase()}` }, h('span', { class: 'badge', 'data-status': source.status }, text),
      source.status === 'FAIL' && source.error ? h('span', { class: 'reason' }, ` ${source.error}`) : null);
  }

  function row(source) {
    const title = source.title || source.url || `Source ${source.id}`;
    const box = h('input', { type: 'checkbox', value: String(source.id), 'aria-label': `Select ${title}` });
    const link = source.url && /^https?:/i.test(source.url) ? h('a', { href: source.url, rel: 'noopener noreferrer', target: '_blank' }, title) : title;
    return h('tr', { 'data-id': source.id },
      h('td', {}, box),
      h('td', {}, link, source.private ? h('span', { class: 'tag' }, 'private') : null,
        // The type label (first) is the Type column already.
        (source.labels ?? []).slice(1).map((label) => h('span', { class: 'tag' }, label))),
      h('td', {}, source.type),
      statusCell(source),
      h('td', {}, formatDate(source.date_created)));
  }

  async function load() {
    clearTimeout(timer);
    try {
      const listing = await getJson(guruApi(`/data-sources/?page=${page}&page_size=${PAGE_SIZE}`));
      if (stopped) return;
      fill(rows, listing.results.length === 0 ? h('tr', {}, h('td', { colspan: 5, class: 'muted' }, 'No sources yet: add some below.')) : listing.results.map(row));
      const first = (page - 1) * PAGE_SIZE + 1;
      fill(summary, listing.count === 0 ? '' : `Sources ${first}–${first + listing.results.length - 1} of ${listing.count}`);
      previous.disabled = listing.previous === null;
      next.disabled = listing.next === null;
      if (listing.results.some((source) => source.status === 'NOT_PROCESSED')) timer = setTimeout(load, POLL_MS);
    } catch (error) {
      status.error(error);
    }
  }
  previous.addEventListener('click', () => { page = Math.max(1, page - 1); load(); });
  next.addEventListener('click', () => { page += 1; load(); });
  reindex.addEventListener('click', () => busy(reindex, async () => {
    const ids = [...rows.querySelectorAll('input[type=checkbox]:checked')].map((box) => Number(box.value));
    if (ids.length === 0) return status.info('Select the sources to reindex first.');
    try {
      const result = await getJson(guruApi('/data-sources/reindex/'), { method: 'POST', json: { ids } });
      status.info(result.msg);
      await load();
    } catch (error) {
      status.error(error);
    }
  }));

  // Deleting asks first; the buttons are made again after each deletion.
  const deletion = h('span');
  const deleteButtons = () => confirmedAction({
    label: 'Delete selected',
    question: 'Delete the selected sources for good? Their text leaves the knowledge base.',
    confirmLabel: 'Yes, delete them',
    action: async () => {
      const ids = [...rows.querySelectorAll('input[type=checkbox]:checked')].map((box) => Number(box.value));
      try {
        if (ids.length === 0) {
          status.info('Select the sources to delete first.');
        } else {
          await getJson(guruApi('/data-sources/'), { method: 'DELETE', json: { ids } });
          status.info(`Deleted ${ids.length} source${ids.length === 1 ? '' : 's'}.`);
          await load();
        }
      } catch (error) {
        status.error(error);
      }
      fill(deletion, deleteButtons());
    },
  });
  fill(deletion, deleteButtons());

  // ---- adding
  async function add(body, done) {
    try {
      const created = await getJson(guruApi('/data-sources/'), { method: 'POST', json: body });
      status.info(`Added ${created.length} source${created.length === 1 ? '' : 's'}; processing starts now.`);
      done();
      page = 1;
      await load();
    } catch (error) {
      status.error(error);
    }
  }

  const urls = h('textarea', { name: 'urls', rows: 3, required: true, placeholder: 'https://docs.example.com/guide' });
  const kind = h('select', { name: 'kind' }, URL_KINDS.map(([value, label]) => h('option', { value }, label)));
  const urlLabels = h('input', { name: 'labels', autocomplete: 'off' });
  const addUrls = h('button', { type: 'submit' }, 'Add URLs');
  const urlForm = h('form', { class: 'card' }, h('h2', {}, 'Add URLs'),
    field('URLs', urls, 'One per line.'), field('Kind', kind), field('Labels', urlLabels, 'Optional, separated by commas.'),
    h('div', { class: 'actions' }, addUrls));
  urlForm.addEventListener('submit', (event) => {
    event.preventDefault();
    const list = urls.value.split(/\s+/).filter(Boolean);
    busy(addUrls, () => add({ [kind.value]: list, ...(urlLabels.value.trim() ? { labels: labelsOf(urlLabels.value) } : {}) }, () => urlForm.reset()));
  });

  const textName = h('input', { name: 'name', required: true, autocomplete: 'off' });
  const textContent = h('textarea', { name: 'content', rows: 5, required: true });
  const textLabels = h('input', { name: 'labels', autocomplete: 'off' });
  const addText = h('button', { type: 'submit' }, 'Add text');
  const textForm = h('form', { class: 'card' }, h('h2', {}, 'Add a text'),
    field('Name', textName), field('Content', textContent, 'Markdown or plain text.'), field('Labels', textLabels, 'Optional, separated by commas.'),
    h('div', { class: 'actions' }, addText));
  textForm.addEventListener('submit', (event) => {
    event.preventDefault();
    const body = { text_sources: [{ name: textName.value.trim(), content: textContent.value }], ...(textLabels.value.trim() ? { labels: labelsOf(textLabels.value) } : {}) };
    busy(addText, () => add(body, () => textForm.reset()));
  });

  const files = h('input', { type: 'file', name: 'files', multiple: true, required: true, accept: '.pdf,.docx,.xlsx,.html,.htm,.md,.markdown,.txt,.rst,.csv,.log,application/pdf,text/*' });
  const privateBox = h('input', { type: 'checkbox', name: 'private' });
  const fileLabels = h('input', { name: 'labels', autocomplete: 'off' });
  const upload = h('button', { type: 'submit' }, 'Upload');
  const uploadForm = h('form', { class: 'card' }, h('h2', {}, 'Upload files'),
    field('Files', files, 'PDF, Word (.docx), Excel (.xlsx), HTML, Markdown and text files, up to 50 MB each.'),
    h('div', { class: 'field check' }, privateBox, h('label', { for: (privateBox.id = 'upload-private') }, 'Private: answer from these, never link or name them')),
    field('Labels', fileLabels, 'Optional, separated by commas.'),
    h('div', { class: 'actions' }, upload));
  uploadForm.addEventListener('submit', (event) => {
    event.preventDefault();
    busy(upload, async () => {
      const outcomes = [];
      for (const file of files.files) {
        const query = new URLSearchParams({ name: file.name, private: String(privateBox.checked) });
        if (fileLabels.value.trim()) query.set('labels', labelsOf(fileLabels.value).join(','));
        try {
          const result = await getJson(`/web/api/documents?${query}`, { method: 'POST', body: file });
          outcomes.push(`${file.name}: ${result.status === 'success' ? 'uploaded' : result.status === 'exists' ? 'already added, unchanged' : result.error}`);
        } catch (error) {
          outcomes.push(`${file.name}: ${error.message}`);
        }
      }
      status.info(outcomes.join(' · '));
      uploadForm.reset();
      page = 1;
      await load();
    });
  });

  main.append(
    h('h1', {}, 'Sources'),
    status.element,
    h('section', { class: 'card wide', 'aria-label': 'Listing' }, h('div', { class: 'table-scroll' }, table),
      h('div', { class: 'actions spread' }, summary, h('span', {}, previous, ' ', next, ' ', reindex, ' ', deletion))),
    h('div', { class: 'grid' }, urlForm, textForm, uploadForm, integrationsCard()),
  );
  await load();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

function integrationsCard() {
  const status = notice();
  const list = h('ul', { class: 'plain' });
  const kind = h('select', { name: 'kind' }, ['jira', 'zendesk', 'confluence'].map((value) => h('option', { value }, value[0].toUpperCase() + value.slice(1))));
  const baseUrl = h('input', { type: 'url', name: 'base_url', required: true, placeholder: 'https://example.atlassian.net' });
  const email = h('input', { type: 'email', name: 'email', autocomplete: 'off' });
  const token = h('input', { type: 'password', name: 'token', required: true, autocomplete: 'off' });
  const save = h('button', { type: 'submit' }, 'Save integration');
  const form = h('form', { class: 'card' }, h('h2', {}, 'Integrations'), list,
    field('Service', kind), field('Base URL', baseUrl), field('Email', email, 'Needed for Zendesk; optional for Jira and Confluence.'),
    field('API token', token, 'Stored on the server; it is never shown again.'),
    h('div', { class: 'actions' }, save), status.element);

  async function load() {
    try {
      const integrations = await getJson('/web/api/integrations');
      fill(list, integrations.length === 0 ? h('li', { class: 'muted' }, 'None set up.') : integrations.map((integration) => {
        const remove = h('button', { type: 'button', class: 'quiet' }, `Remove ${integration.kind}`);
        remove.addEventListener('click', () => busy(remove, async () => {
          try {
            await request(`/web/api/integrations/${integration.kind}`, { method: 'DELETE' });
            await load();
          } catch (error) {
            status.error(error);
          }
        }));
        return h('li', {}, h('strong', {}, integration.kind), ` ${integration.base_url}`, integration.email ? ` (${integration.email})` : '', ' ', remove);
      }));
    } catch (error) {
      status.error(error);
    }
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    busy(save, async () => {
      try {
        const body = { kind: kind.value, base_url: baseUrl.value.trim(), token: token.value, ...(email.value.trim() ? { email: email.value.trim() } : {}) };
        const service = kind.options[kind.selectedIndex].text;
        await getJson('/web/api/integrations', { method: 'POST', json: body });
        form.reset();
        status.info(`${service} is set up.`);
        await load();
      } catch (error) {
        status.error(error);
      }
    });
  });
  load();
  return form;
}
