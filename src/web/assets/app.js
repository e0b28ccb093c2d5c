// The shell: theme, sign-in state, and which page the path names. Pages are modules that
// render into <main> and may return a function that stops their polling when the page changes.
import { currentGuru, signedIn, signOut } from './api.js';
import { fill, h } from './dom.js';

const PAGES = [
  { path: /^\/sources$/, title: 'Sources', load: () => import('./pages/sources.js') },
  { path: /^\/crawl$/, title: 'Crawl', load: () => import('./pages/crawl.js') },
  { path: /^\/ask$/, title: 'Ask', load: () => import('./pages/ask.js') },
  { path: /^\/sessions$/, title: 'Sessions', load: () => import('./pages/sessions.js') },
  { path: /^\/sessions\/([^/]+)$/, title: 'Session', load: () => import('./pages/session.js') },
  { path: /^\/end-users$/, title: 'End users', load: () => import('./pages/end-users.js') },
  { path: /^\/settings$/, title: 'Settings', load: () => import('./pages/settings.js') },
];
const GURUS_PAGE = { title: 'Gurus', load: () => import('./pages/gurus.js') };
const SIGN_IN_PAGE = { title: 'Sign in', load: () => import('./pages/sign-in.js') };

const main = document.getElementById('main');
let stopPage = () => {};
let rendering = 0;

/** A path segment decoded; one that is not valid percent-encoding (`%E0`) as it came, for the page to report. */
function decodedOrAsIs(segment) {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function pageOf(path) {
  if (path === '/gurus') return { page: GURUS_PAGE, params: [] };
  if (!signedIn()) return { page: SIGN_IN_PAGE, params: [] };
  for (const page of PAGES) {
    const match = page.path.exec(path);
    if (match) return { page, params: match.slice(1).map(decodedOrAsIs) };
  }
  return { page: PAGES[0], params: [] };
}

function showWho() {
  const who = document.getElementById('who');
  const nav = document.getElementById('nav');
  const guru = signedIn() ? currentGuru() : null;
  nav.hidden = guru === null;
  if (guru === null) return fill(who);
  fill(who, h('span', {}, 'Guru: ', h('strong', {}, guru.name)), ' ',
    h('button', { type: 'button', class: 'quiet', onClick: () => { signOut(); navigate('/'); } }, 'Sign out'));
}

function markCurrent(path) {
  for (const link of document.querySelectorAll('#nav a')) {
    const current = path === link.getAttribute('href') || path.startsWith(`${link.getAttribute('href')}/`);
    if (current) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
}

async function render() {
  const ticket = ++rendering;
  stopPage();
  stopPage = () => {};
  const path = location.pathname.replace(/\/$/, '') || '/';
  const { page, params } = pageOf(path);
  showWho();
  markCurrent(path);
  document.title = `${page.title} · guru-mcp`;
  try {
    const module = await page.load();
    if (ticket !== rendering) return;
    fill(main);
    const stop = await module.render(main, { params, navigate });
    if (typeof stop === 'function') {
      if (ticket === rendering) stopPage = stop;
      else stop();
    }
  } catch (error) {
    fill(main, h('h1', {}, page.title), h('p', { class: 'notice error', role: 'alert' }, error instanceof Error ? error.message : String(error)));
  }
}

/** Shows the page at `path` (a path of this site), as a link would. */
export function navigate(path) {
  if (path !== location.pathname) history.pushState(null, '', path);
  render().then(() => main.focus({ preventScroll: true }));
}

document.addEventListener('click', (event) => {
  const link = event.target instanceof Element ? event.target.closest('a[href^="/"]') : null;
  if (!link || link.target || event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  event.preventDefault();
  navigate(link.getAttribute('href'));
});
window.addEventListener('popstate', () => render());
window.addEventListener('guru-signed-in', () => showWho());

// Light or dark: the system's choice until the button picks one for this browser.
const THEME = 'guru-mcp.theme';
const applyTheme = () => {
  const chosen = localStorage.getItem(THEME);
  if (chosen) document.documentElement.dataset.theme = chosen;
  else delete document.documentElement.dataset.theme;
};
document.getElementById('theme').addEventListener('click', () => {
  const dark = document.documentElement.dataset.theme
    ? document.documentElement.dataset.theme === 'dark'
    : matchMedia('(prefers-color-scheme: dark)').matches;
  localStorage.setItem(THEME, dark ? 'light' : 'dark');
  applyTheme();
});
applyTheme();
render();
