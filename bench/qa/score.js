// Scoring of one question-answering run: what a reader would check in each answer. Pure functions.
import { URL } from 'node:url';

/**
 * @typedef {{ question: string, pages: string[], terms: (string | string[])[] }} OnTopicQuestion
 * @typedef {{ content: string, references: { link: string, title: string }[], trust_score: number, can_receive_feedback: boolean }} AnswerLike
 * @typedef {{
 *   question: string, kind: 'on-topic' | 'off-topic', declined: boolean, correct: boolean, rightPage: boolean,
 *   missingTerms: string[], trust: number, words: number, fencesClosed: boolean, danglingLeadIns: string[],
 *   cited: string[], ms: number
 * }} Scored
 */

/** Trust at or above this says "rely on me". */
export const CONFIDENT_TRUST = 70;

const WORD_CHAR = /[\p{L}\p{N}_]/u;
const escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A term as a case-insensitive pattern, bounded where it starts or ends with a word character. */
function termPattern(term) {
  const start = WORD_CHAR.test(term[0] ?? '') ? '(?<![\\p{L}\\p{N}_])' : '';
  const end = WORD_CHAR.test(term.at(-1) ?? '') ? '(?![\\p{L}\\p{N}_])' : '';
  return new RegExp(`${start}${escapeRegExp(term)}${end}`, 'iu');
}

/** The required terms (each a string or a list of alternatives) that the text lacks. */
export function missingTerms(text, terms) {
  return terms
    .filter((term) => !(Array.isArray(term) ? term : [term]).some((alternative) => termPattern(alternative).test(text)))
    .map((term) => (Array.isArray(term) ? term.join(' | ') : term));
}

/** The path of a reference link below the served origin, without fragment: `lang_createindex.html`. */
export function pageOf(link) {
  try {
    return decodeURIComponent(new URL(link).pathname).replace(/^\/+/, '');
  } catch {
    return link;
  }
}

/** Words a reader reads: a link's target is not read. */
export const wordCount = (text) => (text.replace(/\]\([^)]*\)/g, ']').match(/[\p{L}\p{N}]+/gu) ?? []).length;

const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/;

/**
 * Splits Markdown into top-level blocks as CommonMark reads fences: an opening fence (indented at
 * most three spaces) runs to a closing fence of the same character, at least as long, indented at
 * most three spaces, with nothing after it. Returns the blocks and whether every fence closed.
 */
export function markdownBlocks(markdown) {
  const blocks = [];
  let current = [];
  /** @type {{ char: string, length: number } | undefined} */
  let fence;
  const flush = (kind) => {
    if (current.length > 0) blocks.push({ kind, text: current.join('\n') });
    current = [];
  };
  for (const line of markdown.split('\n')) {
    const match = FENCE.exec(line);
    if (fence) {
      current.push(line);
      if (match && match[1][0] === fence.char && match[1].length >= fence.length && match[2].trim() === '') {
        fence = undefined;
        flush('code');
      }
      continue;
    }
    if (match && !(match[1][0] === '`' && match[2].includes('`'))) {
      flush('text');
      fence = { char: match[1][0], length: match[1].length };
      current.push(line);
      continue;
    }
    if (line.trim() === '') flush('text');
    else current.push(line);
  }
  if (fence) {
    flush('code');
    return { blocks, fencesClosed: false };
  }
  flush('text');
  return { blocks, fencesClosed: true };
}

const LIST_OR_TABLE_OR_QUOTE = /^\s*(?:[-*+]\s|\d+[.)]\s|\||>)/;
/** A citation line such as `From **Page › Section** [1]:` introduces quoted text; it is not a lead-in. */
const CITATION = /\[\d+\]\**:?\s*$/;
const ELISION = /^\s*(?:…|\.\.\.)/;

/**
 * Prose blocks that end with a colon, introducing something, but are followed by nothing, by the
 * next citation or by an elision (…): the code, list or example they announce was dropped.
 */
export function danglingLeadIns(markdown) {
  const { blocks } = markdownBlocks(markdown);
  const dangling = [];
  blocks.forEach((block, index) => {
    // The first block is the answer's own opening line ("Here is what … says:"), not a quote.
    if (index === 0 || block.kind !== 'text' || CITATION.test(block.text) || !block.text.trimEnd().endsWith(':')) return;
    const next = blocks[index + 1];
    const introduced =
      next !== undefined && (next.kind === 'code' || LIST_OR_TABLE_OR_QUOTE.test(next.text) || !(CITATION.test(next.text) || ELISION.test(next.text)));
    if (!introduced) dangling.push(block.text.split('\n').at(-1) ?? '');
  });
  return dangling;
}

/** The text as a reader sees it: Markdown's backslash escapes (`page\\_size`) undone. */
export const rendered = (markdown) => markdown.replace(/\\([!-/:-@[-`{-~])/g, '$1');

/**
 * The text with emphasis marks taken off: a reader sees DELETE in `_DELETE_` and `**DELETE**`.
 * Identifiers such as `__slots__` lose their underscores too, so terms are looked for in both readings.
 */
const withoutEmphasis = (text) => text.replace(/(?<![\p{L}\p{N}_\\])([*_]{1,3})(?=[^\s*_])([^\n]*?[^\s*_])\1(?![\p{L}\p{N}_])/gu, '$2');

/** How an answer that says it covers the question only in part begins (answer/extractive.ts). */
const PARTIAL_OPENING = 'The knowledge base covers this only in part';

/** A declined answer: no references, trust 0, no feedback: the guru said it does not know. */
export const isDeclined = (answer) => answer.references.length === 0 && answer.trust_score === 0 && !answer.can_receive_feedback;

/** @returns {Scored} */
export function scoreAnswer(question, answer, kind, ms) {
  const declined = isDeclined(answer);
  const cited = answer.references.map((reference) => pageOf(reference.link));
  const text = rendered(answer.content);
  const missing = kind === 'on-topic' ? missingTerms(`${text}\n${withoutEmphasis(text)}`, question.terms) : [];
  const { fencesClosed } = markdownBlocks(answer.content);
  return {
    question: question.question,
    kind,
    declined,
    correct: kind === 'on-topic' ? !declined && missing.length === 0 : declined,
    rightPage: kind === 'on-topic' && cited.some((page) => question.pages.includes(page)),
    missingTerms: missing,
    trust: answer.trust_score,
    partialOpening: answer.content.startsWith(PARTIAL_OPENING),
    words: wordCount(answer.content),
    fencesClosed,
    danglingLeadIns: danglingLeadIns(answer.content),
    cited,
    ms,
  };
}

function median(values) {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/**
 * The area under the ROC curve: the chance that a right answer scores above a wrong one (ties
 * count half; 0.5 is chance, 1 a perfect ranking). Undefined without both kinds.
 */
export function rankingAuc(rightScores, wrongScores) {
  if (rightScores.length === 0 || wrongScores.length === 0) return undefined;
  let wins = 0;
  for (const a of rightScores) for (const b of wrongScores) wins += a > b ? 1 : a === b ? 0.5 : 0;
  return wins / (rightScores.length * wrongScores.length);
}

/** How well trust ranks the answers given (an answered off-topic question is a wrong answer). */
export const trustRanking = (answered) =>
  rankingAuc(
    answered.filter((s) => s.correct && s.kind === 'on-topic').map((s) => s.trust),
    answered.filter((s) => !(s.correct && s.kind === 'on-topic')).map((s) => s.trust),
  );

/** The figures of the goals over one set's scored answers. */
export function summarize(scored) {
  const onTopic = scored.filter((s) => s.kind === 'on-topic');
  const offTopic = scored.filter((s) => s.kind === 'off-topic');
  const answered = scored.filter((s) => !s.declined);
  const confident = scored.filter((s) => s.trust >= CONFIDENT_TRUST);
  const share = (part, whole) => (whole === 0 ? 0 : part / whole);
  return {
    questions: onTopic.length,
    correct: share(onTopic.filter((s) => s.correct).length, onTopic.length),
    rightPage: share(onTopic.filter((s) => s.rightPage).length, onTopic.length),
    declinedOnTopic: onTopic.filter((s) => s.declined).length,
    partialOpenings: answered.filter((s) => s.partialOpening).length,
    partialOpeningsRight: answered.filter((s) => s.partialOpening && s.correct && s.kind === 'on-topic').length,
    answered: answered.length,
    answeredRight: answered.filter((s) => s.correct && s.kind === 'on-topic').length,
    // Over every question asked: an off-topic answer given with high trust is confidently wrong too.
    confidentlyWrong: share(confident.filter((s) => !s.correct).length, scored.length),
    offTopic: offTopic.length,
    offTopicDeclined: offTopic.filter((s) => s.declined).length,
    medianWords: median(answered.map((s) => s.words)),
    unclosedFences: scored.filter((s) => !s.fencesClosed).length,
    danglingLeadIns: scored.reduce((sum, s) => sum + s.danglingLeadIns.length, 0),
    confident: confident.length,
    confidentPrecision: share(confident.filter((s) => s.correct).length, confident.length),
    trustRanking: trustRanking(answered),
    medianAskMs: median(scored.map((s) => s.ms)),
  };
}

/** The goals; each returns whether a summary meets it. */
export const GOALS = [
  ['correct ≥ 80 %', (s) => s.correct >= 0.8],
  ['right page cited ≥ 85 %', (s) => s.rightPage >= 0.85],
  ['confidently wrong ≤ 5 %', (s) => s.confidentlyWrong <= 0.05],
  ['on-topic declined ≤ 1 in 20', (s) => s.declinedOnTopic <= s.questions / 20],
  ['off-topic declined ≥ 11 of 12', (s) => s.offTopicDeclined >= Math.ceil((11 / 12) * s.offTopic)],
  ['median ≤ 200 words', (s) => s.medianWords <= 200],
  ['valid Markdown (fences closed, lead-ins kept)', (s) => s.unclosedFences === 0 && s.danglingLeadIns === 0],
  ['trust ≥ 70 right 9 in 10', (s) => s.confident === 0 || s.confidentPrecision >= 0.9],
];
