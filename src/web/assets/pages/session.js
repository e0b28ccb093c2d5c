// One session: every question with its answer, references, trust score and votes; delete it.
import { getJson, request } from '../api.js';
import { referencesList, speechButton, trustLegend, trustScore, votes } from '../answer-parts.js';
import { confirmedAction, fill, formatDate, h, notice } from '../dom.js';
import { renderMarkdown } from '../markdown.js';
import { forgetConversation } from './ask.js';

export async function render(main, { params: [sessionId], navigate }) {
  const status = notice();
  const heading = h('h1', {}, 'Session');
  main.append(heading, status.element);
  let session;
  try {
    session = await getJson(`/api/v1/sessions/${encodeURIComponent(sessionId)}/conversation/`, { method: 'POST' });
  } catch (error) {
    status.error(error);
    main.append(h('p', {}, h('a', { href: '/sessions' }, 'Back to sessions')));
    return;
  }
  const first = session.conversation[0];
  fill(heading, first ? first.user_question || first.question : 'Session');

  const confirmBox = confirmedAction({
    label: 'Delete session',
    question: 'Delete this session and all its answers for good?',
    confirmLabel: 'Yes, delete it',
    action: async () => {
      try {
        await request(`/api/v1/sessions/${encodeURIComponent(sessionId)}/delete/`, { method: 'DELETE' });
        forgetConversation(sessionId);
        navigate('/sessions');
      } catch (error) {
        status.error(error);
      }
    },
  });

  main.append(
    h('p', { class: 'muted' }, `Started ${formatDate(session.date_created)} · last used ${formatDate(session.last_used)}`),
    ...session.conversation.map((turn) => {
      const content = renderMarkdown(h('div', { class: 'answer markdown' }), turn.answer);
      // A backend whose turns do not say (the spec's turn lacks the field) takes votes as the service decides.
      const takesFeedback = turn.can_receive_feedback ?? true;
      return h('article', { class: 'turn card' },
        h('h2', { class: 'question' }, turn.user_question || turn.question),
        h('p', { class: 'muted' }, `${formatDate(turn.date_created)} · via ${turn.source}`),
        content,
        referencesList(turn.references),
        trustScore(turn.trust_score, { canReceiveFeedback: takesFeedback }),
        takesFeedback ? votes({ slug: turn.slug, sessionId, current: turn.user_vote }) : null,
        takesFeedback ? speechButton(() => content.textContent ?? '') : null);
    }),
    trustLegend(),
    confirmBox,
    h('p', {}, h('a', { href: '/sessions' }, 'Back to sessions')),
  );
}
