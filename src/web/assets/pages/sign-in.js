// Sign in with a guru's API key; it is kept in this tab's sessionStorage only.
import { signIn } from '../api.js';
import { busy, field, h, notice } from '../dom.js';

export function render(main, { navigate }) {
  const key = h('input', { type: 'password', name: 'api-key', autocomplete: 'off', required: true, spellcheck: 'false' });
  const status = notice();
  const button = h('button', { type: 'submit' }, 'Sign in');
  const form = h('form', { class: 'card narrow' },
    field('API key', key, ['A key of the guru you run, from ', h('code', {}, 'guru-mcp guru create'), ' or ', h('code', {}, 'guru-mcp key create'), '.']),
    h('div', { class: 'actions' }, button),
    status.element);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    busy(button, async () => {
      try {
        await signIn(key.value.trim());
        window.dispatchEvent(new Event('guru-signed-in'));
        navigate(location.pathname === '/' ? '/sources' : location.pathname);
      } catch (error) {
        status.error(error);
        key.focus();
      }
    });
  });
  main.append(
    h('h1', {}, 'Sign in'),
    form,
    h('p', { class: 'muted' }, 'Running guru-mcp on this machine? ', h('a', { href: '/gurus' }, 'List or create gurus'), '.'),
  );
  key.focus();
}
