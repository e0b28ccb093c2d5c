// The local operator's gurus (only on a loopback bind): list them, create one and see its key once,
// delete one (after confirmation).
import { currentGuru, getJson, signIn, signOut } from '../api.js';
import { busy, confirmedAction, field, fill, formatDate, h, notice } from '../dom.js';

export async function render(main, { navigate }) {
  const status = notice();
  const list = h('ul', { class: 'plain' });
  const slug = h('input', { name: 'slug', required: true, pattern: '[a-z0-9](?:[a-z0-9-]*[a-z0-9])?', autocomplete: 'off' });
  const name = h('input', { name: 'name', autocomplete: 'off' });
  const create = h('button', { type: 'submit' }, 'Create guru');
  const created = h('div');
  const form = h('form', { class: 'card' },
    h('h2', {}, 'New guru'),
    field('Slug', slug, 'Lowercase letters, digits and inner hyphens.'),
    field('Name', name),
    h('div', { class: 'actions' }, create));

  async function load() {
    const gurus = await getJson('/web/api/gurus');
    fill(list, gurus.length === 0 ? h('li', { class: 'muted' }, 'No gurus yet.') : gurus.map((guru) =>
      h('li', {}, h('strong', {}, guru.name), ` (${guru.slug}), created ${formatDate(guru.date_created)}`, deleteButtons(guru.slug))));
  }

  const deleteButtons = (slug) => confirmedAction({
    label: `Delete ${slug}`,
    question: `Delete the guru ${slug} with all its sources, sessions, answers and end-user data, for good? Its API keys stop working.`,
    confirmLabel: `Yes, delete ${slug}`,
    action: async () => {
      try {
        const deleted = await getJson(`/web/api/gurus/${encodeURIComponent(slug)}`, { method: 'DELETE' });
        status.info(`Deleted the guru ${deleted.slug}: ${deleted.deleted.data_sources} sources, ${deleted.deleted.sessions} sessions.`);
        // Its key no longer works: a tab signed in with it signs out.
        if (currentGuru()?.guru_slug === slug) {
          signOut();
          window.dispatchEvent(new Event('guru-signed-in'));
        }
        await load();
      } catch (error) {
        status.error(error);
      }
    },
  });

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    busy(create, async () => {
      try {
        const body = { slug: slug.value.trim(), ...(name.value.trim() ? { name: name.value.trim() } : {}) };
        const guru = await getJson('/web/api/gurus', { method: 'POST', json: body });
        const use = h('button', { type: 'button' }, 'Sign in with this key');
        use.addEventListener('click', () => busy(use, async () => {
          await signIn(guru.api_key);
          window.dispatchEvent(new Event('guru-signed-in'));
          navigate('/sources');
        }));
        fill(created, h('div', { class: 'card key', role: 'status' },
          h('p', {}, `Guru ${guru.slug} created. Its API key is shown this once: keep it somewhere safe.`),
          h('code', { class: 'secret' }, guru.api_key), h('div', { class: 'actions' }, use)));
        form.reset();
        status.clear();
        await load();
      } catch (error) {
        status.error(error);
      }
    });
  });

  main.append(h('h1', {}, 'Gurus'), status.element, h('section', { class: 'card' }, h('h2', {}, 'On this machine'), list), created, form);
  try {
    await load();
  } catch (error) {
    // The routes exist only on a loopback bind.
    status.error(error.status === 404 ? new Error('Gurus can be listed and created here only when guru-mcp serve listens on a loopback address (127.0.0.1, the default). Use the command guru-mcp guru create on the server.') : error);
    form.hidden = true;
  }
}
