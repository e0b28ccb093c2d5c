// End users: look up what the guru holds about one end user, and erase it after confirming.
import { getJson, guruApi } from '../api.js';
import { busy, confirmedAction, field, fill, formatDate, h, notice } from '../dom.js';
import { forgetEndUserConversation } from './ask.js';

const KINDS = [
  ['questions', 'Questions', (item) => `${item.user_question || item.question} (${formatDate(item.date_created)}, via ${item.source})`],
  ['rejected_questions', 'Declined questions', (item) => `${item.user_question || item.question}: ${item.reason}`],
  ['conversations', 'Conversations', (item) => h('a', { href: `/sessions/${encodeURIComponent(item.id)}` }, `Session of ${formatDate(item.date_created)}`)],
  ['searches', 'Searches', (item) => `${item.query} (${formatDate(item.date_created)})`],
  ['profile', 'Profile', (item) => JSON.stringify(item.profile_data)],
  ['memories', 'Memories', (item) => item.memory],
];

export function render(main) {
  const status = notice();
  const id = h('input', { name: 'external_user_id', required: true, autocomplete: 'off' });
  const look = h('button', { type: 'submit' }, 'Look up');
  const form = h('form', { class: 'card inline' }, field('End user ID', id, 'The external_user_id your integration sends.'), h('div', { class: 'actions' }, look));
  const result = h('div');

  function show(data) {
    const userId = data.external_user_id;
    const eraseBox = confirmedAction({
      label: 'Erase all data of this end user',
      question: `Erase everything held about ${userId}? This cannot be undone.`,
      confirmLabel: 'Yes, erase for good',
      action: async () => {
        try {
          const erased = await getJson(guruApi(`/end-users/${encodeURIComponent(userId)}/data/`), { method: 'DELETE' });
          forgetEndUserConversation(userId);
          const counts = Object.entries(erased.deleted).map(([kind, count]) => `${count} ${kind.replace('_', ' ')}`).join(', ');
          fill(result);
          status.info(`Erased the data of ${userId}: ${counts}.`);
        } catch (error) {
          status.error(error);
        }
      },
    });
    fill(result,
      ...KINDS.map(([key, title, describe]) => h('section', { class: 'card', 'aria-label': title }, h('h2', {}, title),
        data.data[key].length === 0 ? h('p', { class: 'muted' }, 'None.') : h('ul', { class: 'plain' }, data.data[key].map((item) => h('li', {}, describe(item)))))),
      eraseBox);
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    busy(look, async () => {
      status.clear();
      try {
        show(await getJson(guruApi(`/end-users/${encodeURIComponent(id.value.trim())}/data/`)));
      } catch (error) {
        fill(result);
        status.error(error);
      }
    });
  });
  main.append(h('h1', {}, 'End users'), form, status.element, result);
  id.focus();
}
