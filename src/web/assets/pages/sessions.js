// Sessions: today, last week and older, with search and more pages.
import { getJson, guruApi } from '../api.js';
import { busy, field, fill, formatDate, h, notice } from '../dom.js';

const GROUPS = [['today', 'Today'], ['last_week', 'Last week'], ['older', 'Older']];

export async function render(main) {
  const status = notice();
  const search = h('input', { type: 'search', name: 'search_query', autocomplete: 'off' });
  const find = h('button', { type: 'submit' }, 'Search');
  const form = h('form', { class: 'card inline', role: 'search' }, field('Search sessions', search), h('div', { class: 'actions' }, find));
  const lists = Object.fromEntries(GROUPS.map(([key]) => [key, h('ul', { class: 'plain sessions' })]));
  const groups = GROUPS.map(([key, title]) => h('section', { class: 'card', 'aria-label': title }, h('h2', {}, title), lists[key]));
  const empty = h('p', { class: 'muted' });
  const more = h('button', { type: 'button', class: 'quiet', hidden: true }, 'More sessions');
  let page = 1;

  async function load(append) {
    try {
      const result = await getJson(guruApi('/sessions/'), { method: 'POST', json: { page_num: page, search_query: search.value.trim() } });
      for (const [key] of GROUPS) {
        const items = result[key].map((session) => h('li', {},
          h('a', { href: `/sessions/${encodeURIComponent(session.id)}` }, session.root_question_name || session.root_question_slug),
          h('span', { class: 'muted' }, ` · ${formatDate(session.last_used)}`)));
        if (append) lists[key].append(...items);
        else fill(lists[key], items);
      }
      const none = GROUPS.every(([key]) => lists[key].children.length === 0);
      for (const [index, [key]] of GROUPS.entries()) groups[index].hidden = lists[key].children.length === 0;
      fill(empty, none ? (search.value.trim() ? 'No session matches.' : 'No sessions yet: ask something.') : '');
      more.hidden = !result.has_more;
    } catch (error) {
      status.error(error);
    }
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    page = 1;
    busy(find, () => load(false));
  });
  more.addEventListener('click', () => {
    page += 1;
    busy(more, () => load(true));
  });
  main.append(h('h1', {}, 'Sessions'), form, status.element, empty, ...groups, more);
  await load(false);
}
