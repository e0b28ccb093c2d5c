// The parts shown under an answer, on the Ask page and in a session: references, trust
// score (with what its band means), votes and the speech button. Votes and speech are only for
// answers that can receive feedback: a declined answer has nothing to vote on or read aloud.
import { getJson, guruApi, request } from './api.js';
import { busy, field, fill, h, notice } from './dom.js';
import { safeHref } from './markdown.js';
import { TRUST_BANDS, trustBand } from './trust-bands.js';

/** The spec's cap on text read aloud. */
const MAX_SPEECH_CHARS = 20000;

export function referencesList(references) {
  if (references.length === 0) return null;
  return h('section', { class: 'references', 'aria-label': 'References' }, h('h3', {}, 'References'),
    h('ol', {}, references.map((reference) => {
      const href = reference.link ? safeHref(reference.link) : null;
      return h('li', {}, href ? h('a', { href, rel: 'noopener noreferrer', target: '_blank' }, reference.title || href) : reference.title);
    })));
}

/** The score, coloured by its band and followed by the band's name; the band's meaning as a tooltip. */
export function trustScore(score, { canReceiveFeedback = true } = {}) {
  const band = trustBand(score, { canReceiveFeedback });
  return h('p', { class: `trust ${band.name}`, title: band.meaning },
    'Trust score: ', h('strong', {}, `${Math.round(score)}`), ' / 100 · ', h('span', { class: 'band' }, band.label));
}

/** What each band of the trust score means, in the colours the scores are shown in. */
export function trustLegend() {
  return h('details', { class: 'trust-legend' }, h('summary', {}, 'What the trust score says'),
    h('dl', {}, TRUST_BANDS.map((band) => [h('dt', { class: `trust ${band.name}` }, h('strong', {}, band.label)), h('dd', {}, band.meaning)])));
}

/** Upvote or downvote an answer (its slug), with optional feedback; a vote already given is shown instead. */
export function votes({ slug, sessionId, current }) {
  const box = h('section', { class: 'votes', 'aria-label': 'Vote' });
  const status = notice();
  const shown = (vote, extra = '') => fill(box, h('p', {}, `Your vote: ${vote === 'upvote' ? 'helpful' : 'not helpful'}${extra}`));
  if (current) return shown(current);
  const feedback = h('input', { name: 'feedback', maxlength: 200, autocomplete: 'off' });
  const send = (voteType) => async () => {
    try {
      const result = await getJson(guruApi('/record_vote/'), {
        method: 'POST',
        json: { content_slug: slug, vote_type: voteType, ...(sessionId ? { binge_id: sessionId } : {}), ...(feedback.value.trim() ? { feedback: feedback.value.trim() } : {}) },
      });
      shown(result.vote, result.msg === 'Already voted' ? ' (already voted)' : ' (thank you)');
    } catch (error) {
      status.error(error);
    }
  };
  const up = h('button', { type: 'button', class: 'quiet' }, 'Helpful');
  const down = h('button', { type: 'button', class: 'quiet' }, 'Not helpful');
  up.addEventListener('click', () => busy(up, send('upvote')));
  down.addEventListener('click', () => busy(down, send('downvote')));
  return fill(box, field('Feedback (optional)', feedback), h('div', { class: 'actions' }, up, ' ', down), status.element);
}

/**
 * A button that reads `text()` aloud: the speech stream, fetched with the key, played from a
 * blob. Version 2 (the speech provider) where the guru's settings turn it on, else the offline voice.
 */
export function speechButton(text) {
  const status = notice();
  const player = h('div', { class: 'player' });
  const play = h('button', { type: 'button', class: 'quiet' }, 'Play answer');
  let audioUrl;
  play.addEventListener('click', () => busy(play, async () => {
    try {
      status.info('Preparing the audio…');
      const { speech_provider: provider } = await getJson('/web/api/settings');
      const path = provider ? '/text-to-speech-v2/stream/' : '/text-to-speech/stream/';
      const response = await request(guruApi(path), { method: 'POST', json: { text: text().slice(0, MAX_SPEECH_CHARS) } });
      // Pressed again: the earlier recording's blob is let go.
      if (audioUrl !== undefined) URL.revokeObjectURL(audioUrl);
      audioUrl = URL.createObjectURL(await response.blob());
      const audio = h('audio', { controls: true, src: audioUrl, 'aria-label': 'Answer read aloud' });
      fill(player, audio);
      status.clear();
      await audio.play().catch(() => {});
    } catch (error) {
      status.error(error);
    }
  }));
  return h('div', { class: 'speech' }, play, player, status.element);
}
