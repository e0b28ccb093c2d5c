/**
 * What a question asks, apart from the context around it. Users often frame a question: "People are
 * uploading huge files. How do I limit the upload size?" The framing tells why they ask; the
 * question sentence tells what to find. A manual answers the question in its own words and seldom
 * repeats the framing's ("people", "huge"), so the framing's words must not count against a
 * passage as words the question needs (answerer.ts searches them alongside, as context).
 */
import { parseQuery } from '../search/query.js';

/** A question split into the sentence that asks and the sentences around it. */
export interface FramedQuestion {
  /** The sentence that asks (the whole question when it is one sentence). */
  readonly asks: string;
  /** The other sentences, in order ('' when there are none). */
  readonly framing: string;
}

/** Sentence ends: `.`, `!` or `?` followed by space and a capital, a digit or an opening mark. */
const SENTENCE_END = /(?<=[.!?])\s+(?=[\p{Lu}\p{N}"'`(])/u;

/** A sentence that opens as a question does ("How do I…", "Can I…", "What is…"). */
const OPENS_AS_QUESTION =
  /^(?:how|what|why|when|where|which|who|whom|whose|is|are|was|were|can|could|should|would|will|do|does|did|may|must|shall)\b/i;

/**
 * A question sentence that points back at what came before ("What does this error mean?", "How do
 * I fix it?"): the sentence before names its subject, so the question is read whole.
 */
const POINTS_BACK = /\b(?:this|that|these|those|it|they|them|such)\b/i;

/**
 * An asking sentence with fewer content words than this leans on its framing for its subject ("The
 * file stays big after I deleted most of the data. How do I get the space back?").
 */
const MIN_ASKING_WORDS = 3;

const whole = (question: string): FramedQuestion => ({ asks: question, framing: '' });

/**
 * The question's asking sentence and its framing. The asking sentence is the last one ending with a
 * question mark, else the last one opening as a question; a question of one sentence, one whose
 * asking sentence has fewer than three content words of its own, or one that points back at the
 * framing is read whole.
 */
export function splitFraming(question: string): FramedQuestion {
  const sentences = question
    .trim()
    .split(SENTENCE_END)
    .map((sentence) => sentence.trim())
    .filter((sentence) => sentence !== '');
  if (sentences.length < 2) return whole(question);
  const asked = sentences.findLastIndex((sentence) => sentence.endsWith('?'));
  const index = asked >= 0 ? asked : sentences.findLastIndex((sentence) => OPENS_AS_QUESTION.test(sentence));
  const asks = sentences[index];
  if (asks === undefined || POINTS_BACK.test(asks) || new Set(parseQuery(asks).terms).size < MIN_ASKING_WORDS) return whole(question);
  return { asks, framing: sentences.filter((_, i) => i !== index).join(' ') };
}
