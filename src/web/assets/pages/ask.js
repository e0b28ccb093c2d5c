// Ask: the answer streams in as it is written, then its references, trust score, follow-up
// examples, votes and speech. Later questions continue the conversation until a new one starts.
import { getJson, guruApi, request } from '../api.js';
import { referencesList, speechButton, trustLegend, trustScore, votes } from '../answer-parts.js';
import { busy, field, fill, h, notice } from '../dom.js';
import { renderMarkdown } from '../markdown.js';

const PROGRESS_POLL_MS = 700;
const CONVERSATION = 'guru-mcp.ask-session';
const END_USER = 'guru-mcp.ask-end-user';

export function render(main) {
  // Leaving the page stops an answer still streaming (and its progress polling).
  const leaving = new AbortController();
  const status = notice();
  const question = h('textarea', { name: 'question', rows: 3, required: true, maxlength: 10000 });
  const endUser = h('input', { name: 'external_user_id', value: askingEndUser(), autocomplete: 'off' });
  // No accept filter: logs come as app.log.1, syslog or .json; the content decides (attachmentsOf).
  const files = h('input', { type: 'file', name: 'attachments', multiple: true });
  const ask = h('button', { type: 'submit' }, 'Ask');
  const restart = h('button', { type: 'button', class: 'quiet' }, 'New conversation');
  const dropped = [];
  const droppedList = h('ul', { class: 'plain muted' });
  const turns = h('div', { class: 'turns' });

  const dropZone = h('div', { class: 'drop', tabindex: -1 }, 'Drop images, PDFs or log files here to attach them.', droppedList);
  dropZone.addEventListener('dragover', (event) => { event.preventDefault(); dropZone.classList.add('over'); });
  dropZone.addEventListener('dragleave', () => dropZone.classList.remove('over'));
  dropZone.addEventListener('drop', (event) => {
    event.preventDefault();
    dropZone.classList.remove('over');
    dropped.push(...event.dataTransfer.files);
    fill(droppedList, dropped.map((file) => h('li', {}, file.name)));
  });

  const form = h('form', { class: 'card ask' },
    field('Question', question),
    h('details', {}, h('summary', {}, 'Options and attachments'),
      field('End user ID', endUser, 'Whose question this is; their answer progress and sessions go under it.'),
      field('Attachments', files), dropZone),
    h('div', { class: 'actions' }, ask, ' ', restart));

  let sessionId = sessionStorage.getItem(CONVERSATION) ?? undefined;
  const startOver = () => {
    sessionId = undefined;
    sessionStorage.removeItem(CONVERSATION);
    fill(turns);
    status.info('The next question starts a new conversation.');
  };
  restart.addEventListener('click', () => {
    startOver();
    question.focus();
  });
  // A conversation belongs to one end user.
  endUser.addEventListener('change', () => {
    sessionStorage.setItem(END_USER, endUser.value.trim());
    startOver();
  });
  question.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) form.requestSubmit();
  });

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const text = question.value.trim();
    if (text === '') return;
    busy(ask, async () => {
      status.clear();
      try {
        const attachments = await attachmentsOf([...files.files, ...dropped]);
        const input = { question: text, ...(sessionId ? { session_id: sessionId } : {}), ...(endUser.value.trim() ? { external_user_id: endUser.value.trim() } : {}) };
        const answer = await askStreaming(turns, input, attachments, leaving.signal);
        sessionId = answer.session_id;
        sessionStorage.setItem(CONVERSATION, sessionId);
        question.value = '';
        form.querySelector('details').open = false;
        files.value = '';
        dropped.length = 0;
        fill(droppedList);
      } catch (error) {
        if (!leaving.signal.aborted) status.error(error);
      }
    });
  });

  main.append(h('h1', {}, 'Ask'), form, status.element, turns, trustLegend());
  if (sessionId !== undefined) {
    status.info('Questions continue ', h('a', { href: `/sessions/${encodeURIComponent(sessionId)}` }, 'your last conversation'), '; New conversation starts another.');
  }
  question.focus();
  return () => leaving.abort();
}

/** The end user this tab asks as ('' for none). */
function askingEndUser() {
  return sessionStorage.getItem(END_USER) ?? 'web-console';
}

/** Called when a session is deleted: the next question must not continue it. */
export function forgetConversation(sessionId) {
  if (sessionStorage.getItem(CONVERSATION) === sessionId) sessionStorage.removeItem(CONVERSATION);
}

/** Called when an end user's data is erased: their conversations are gone, so the next question starts a new one. */
export function forgetEndUserConversation(externalUserId) {
  if (askingEndUser() === externalUserId) sessionStorage.removeItem(CONVERSATION);
}

const isImage = (file) => file.type.startsWith('image/');
const isPdf = (file) => file.type === 'application/pdf' || /\.pdf$/i.test(file.name);
/** Text, whatever its name or type says, when its first 4 KB hold no NUL byte (binary formats nearly always do). */
const isText = async (file) => !new Uint8Array(await file.slice(0, 4096).arrayBuffer()).includes(0);

/**
 * Images and PDFs as data URLs, text files as log files, in the ask request's fields. Any other
 * file (an archive, a program) is refused before anything is sent: as a log it would be garbage.
 */
async function attachmentsOf(list) {
  const refused = [];
  for (const file of list) if (!isImage(file) && !isPdf(file) && !(await isText(file))) refused.push(file.name);
  if (refused.length > 0) {
    throw new Error(`Only images, PDFs and text files (logs) can be attached; remove ${refused.join(', ')}.`);
  }
  const body = {};
  const put = (kind, item) => (body[kind] ??= []).push(item);
  for (const file of list) {
    if (isImage(file)) put('images', { name: file.name, type: file.type, data: await dataUrlOf(file) });
    else if (isPdf(file)) put('pdf_files', { name: file.name, type: 'application/pdf', data: await dataUrlOf(file) });
    else put('log_files', { name: file.name, data: await file.text() });
  }
  return body;
}

function dataUrlOf(file) {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(reader.result);
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(file);
  });
}

/**
 * The spec's streaming flow: ask with `stream: true` and show the text as it comes, then ask
 * again with `fetch_existing: true` for the stored answer's slug, references and trust score.
 */
async function askStreaming(turns, input, attachments, signal) {
  const progress = h('p', { class: 'progress muted', role: 'status' }, 'Asking…');
  const content = h('div', { class: 'answer markdown', 'aria-busy': 'true' });
  const after = h('div', { class: 'after' });
  const turn = h('article', { class: 'turn card' }, h('h2', { class: 'question' }, input.question), progress, content, after);
  turns.append(turn);
  turn.scrollIntoView({ block: 'nearest' });

  let text = '';
  let frame = 0;
  const stopProgress = input.external_user_id ? pollProgress(input.external_user_id, progress, signal) : () => {};
  try {
    const response = await request(guruApi('/answer/'), { method: 'POST', json: { ...input, ...attachments, stream: true }, signal });
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      if (text === '') {
        stopProgress();
        fill(progress, 'Writing the answer…');
      }
      text += value;
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(() => renderMarkdown(content, text));
    }
  } catch (error) {
    turn.remove();
    throw error;
  } finally {
    stopProgress();
    cancelAnimationFrame(frame);
  }
  renderMarkdown(content, text);
  content.setAttribute('aria-busy', 'false');

  const { session_id: sessionId } = input;
  const answer = await getJson(guruApi('/answer/'), {
    method: 'POST',
    signal,
    json: { question: input.question, fetch_existing: true, stream: false, ...(sessionId ? { session_id: sessionId } : {}), ...(input.external_user_id ? { external_user_id: input.external_user_id } : {}) },
  });
  progress.remove();
  // The text opens with the attachment note (a quoted line), if there is one: it is not shown again.
  const takesFeedback = answer.can_receive_feedback;
  fill(after,
    referencesList(answer.references),
    trustScore(answer.trust_score, { canReceiveFeedback: takesFeedback }),
    takesFeedback ? votes({ slug: answer.slug, sessionId: answer.session_id }) : null,
    takesFeedback ? speechButton(() => content.textContent ?? '') : null,
    followUps(answer),
    /^https?:/.test(answer.question_url) ? h('p', {}, h('a', { href: new URL(answer.question_url).pathname }, 'Open this conversation in Sessions')) : null);
  return answer;
}

/** The end user's progress line, shown until the answer's first words arrive. */
function pollProgress(externalUserId, line, signal) {
  let timer;
  let stopped = false;
  const poll = async () => {
    try {
      const progress = await getJson(guruApi(`/answer-progress/?external_user_id=${encodeURIComponent(externalUserId)}`), { signal });
      if (!stopped && progress.status_text) fill(line, progress.status_text);
    } catch {
      // The line is a courtesy: the answer itself reports any failure.
    }
    if (!stopped) timer = setTimeout(poll, PROGRESS_POLL_MS);
  };
  timer = setTimeout(poll, PROGRESS_POLL_MS / 2);
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

/** Follow-up examples of the answer: each asks itself when pressed. */
function followUps(answer) {
  const box = h('section', { class: 'follow-ups', 'aria-label': 'Follow-up questions' });
  getJson(guruApi('/follow-up/examples/'), { method: 'POST', json: { question_slug: answer.slug, binge_id: answer.session_id } })
    .then(({ follow_up_examples: examples }) => {
      if (examples.length === 0) return;
      fill(box, h('h3', {}, 'You could also ask'), h('ul', { class: 'plain' }, examples.map((example) => {
        const button = h('button', { type: 'button', class: 'link' }, example);
        button.addEventListener('click', () => {
          const question = document.querySelector('textarea[name=question]');
          question.value = example;
          question.form.requestSubmit();
        });
        return h('li', {}, button);
      })));
    })
    .catch((error) => fill(box, h('p', { class: 'muted' }, `No follow-up examples: ${error.message}`)));
  return box;
}
