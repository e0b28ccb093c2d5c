// What a trust score says, in the bands the engine draws (src/engine/answer/trust.ts and the
// "Trust score" in docs/answers.md): 0 is an answer the knowledge base could not give; up to 49, an answer
// that may cover the question only in part; 70 and over takes strong evidence. No imports, so
// that a test can hold these numbers against the engine's.

/** From this score on, the answer covers all the question's key words (the engine's PARTIAL_CEILING + 1). */
export const COVERED_TRUST = 50;
/** From this score on, the evidence is strong: rely on it (the engine's RELIABLE_TRUST). */
export const RELIABLE_TRUST = 70;

/** The bands, lowest first: `name` is the class the colour hangs on. */
export const TRUST_BANDS = [
  {
    name: 'none',
    label: 'declined',
    meaning: 'Score 0: the knowledge base holds nothing on this question, so the answer says so, cites nothing and takes no votes. A greeting or a thank-you, answered without the knowledge base, scores 0 too.',
  },
  {
    name: 'low',
    label: 'low evidence',
    meaning: 'Scores 1 to 49: the sources hold the question\'s words weakly, or only some of them (the answer then says it covers the question in part). The score is the estimated chance, in percent, that the answer holds what was asked: many right answers score here, so check the references.',
  },
  {
    name: 'fair',
    label: 'fair evidence',
    meaning: 'Scores 50 to 69: the sources hold most of the question\'s key words, without every sign of strong evidence. More likely right than not: check the references.',
  },
  {
    name: 'strong',
    label: 'strong evidence',
    meaning: 'Scores 70 and more: nearly all the question\'s key words, close together, under a title or heading that names them, with other passages agreeing (with a language model: the cited sources support the answer). Rely on it.',
  },
];

/** The band of an answer's score; an answer that takes no feedback is declined whatever its score. */
export function trustBand(score, { canReceiveFeedback = true } = {}) {
  const [none, low, fair, strong] = TRUST_BANDS;
  if (!canReceiveFeedback || score <= 0) return none;
  if (score < COVERED_TRUST) return low;
  if (score < RELIABLE_TRUST) return fair;
  return strong;
}
