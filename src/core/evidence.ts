/**
 * Evidence for callers that write their own reply (models over MCP): the passages an answer drew on,
 * or a search found, best first, within a budget of tokens the caller sets. REST keeps the spec's
 * shapes and never carries them.
 *
 * Tokens are estimated, not counted by a tokenizer: one token per 4 characters, rounded up (close to
 * what English prose and code take with common tokenizers; a budget is a size, not an exact bill).
 */

/** The budget when the caller names none. */
export const EVIDENCE_TOKENS_DEFAULT = 1500;
/** The largest budget a caller may ask for. */
export const EVIDENCE_TOKENS_MAX = 8000;

/** The estimate of how many tokens a text takes: its characters / 4, rounded up. */
export const estimateTokens = (text: string): number => Math.ceil(text.length / 4);

export interface EvidenceRequest {
  /** The budget in estimated tokens (estimateTokens) for the passages' text; 0: none. */
  readonly tokens: number;
}

export interface EvidencePassage {
  /** The page or document title. */
  readonly title: string;
  /** The section's heading path, outermost first (empty: the page's start). */
  readonly headings: readonly string[];
  /** Where to read it; null for internal sources (texts, documents, attachments). */
  readonly link: string | null;
  readonly text: string;
  /** Search excerpts: the 0-based place of the source it comes from among the results. */
  readonly source?: number;
  /** True when the passage was cut (at a sentence) to fit the budget. */
  readonly cut: boolean;
}

export interface EvidenceSet {
  readonly budget_tokens: number;
  /** Estimated tokens of the passages given (at most budget_tokens). */
  readonly tokens: number;
  readonly passages: readonly EvidencePassage[];
  /** Passages found but left out for the budget. */
  readonly left_out: number;
}

/** A candidate passage before the budget: the text whole. */
export type EvidenceCandidate = Omit<EvidencePassage, 'cut'>;

/** Sentences shorter than this (in letters and digits) are never taken for repeats. */
const MIN_REPEAT = 12;

const bare = (sentence: string): string => sentence.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();

/** Sentences (and list items, lines of code) of a text, each with what separated it from the next. */
export function sentences(text: string): string[] {
  return text.match(/[^]+?(?:[.!?]+(?=\s|$)|\n|$)\s*/gu) ?? [text];
}

/**
 * The question's words, for choosing passages by what they add (packEvidence): a passage holding
 * words no earlier passage holds tells the caller more than one repeating them.
 */
export interface QuestionWords {
  /** Each question word's weight: rarer words weigh more. */
  readonly weights: ReadonlyMap<string, number>;
  /** The question words (keys of weights) a text holds, by a synonym or another form of the word too. */
  readonly of: (text: string) => ReadonlySet<string>;
}

/**
 * How much a candidate's place counts: the one at `rank` (0-based) weighs 1 / (1 + rank / RANK_SCALE),
 * so the best ones come first unless a later one adds question words they lack.
 */
const RANK_SCALE = 4;
/** New question words multiply a candidate's worth by up to 1 + this (all of the question's weight new). */
const COVERAGE_WORTH = 2;
/**
 * A candidate's worth is divided by its size (estimated tokens, at least MIN_COST) to the power
 * COST_POWER: a short passage adding the same words is preferred, a long one not shut out.
 * RANK_SCALE, COVERAGE_WORTH, MIN_COST and COST_POWER were set on the sqlite, Node.js and Python
 * sets (bench/qa/evidence.js); the recall moved by at most a few points over the values tried.
 */
const MIN_COST = 60;
const COST_POWER = 0.5;

/** A sentence with the key it is known by as a repeat ('' when too short to be taken for one). */
interface Sentence {
  readonly text: string;
  readonly key: string;
  /** Whether it holds a letter or digit. */
  readonly says: boolean;
}

interface Pending {
  readonly candidate: EvidenceCandidate;
  readonly rank: number;
  readonly sentences: readonly Sentence[];
}

const isFence = (sentence: Sentence): boolean => /^\s*(?:```|~~~)/.test(sentence.text);

/** The sentences less each code block whose every line was taken out (its fences alone would be left). */
function withoutEmptyFences(kept: readonly Sentence[]): Sentence[] {
  const result: Sentence[] = [];
  let open = false;
  for (const sentence of kept) {
    if (isFence(sentence)) {
      if (open && result.length > 0 && isFence(result.at(-1)!)) {
        result.pop();
        open = false;
        continue;
      }
      open = !open;
    }
    result.push(sentence);
  }
  return result;
}

function keyed(text: string): Sentence[] {
  return sentences(text).map((sentence) => {
    const key = bare(sentence);
    return { text: sentence, key: key.length < MIN_REPEAT ? '' : key, says: key !== '' };
  });
}

/**
 * The candidates (best first) within `budget` estimated tokens. Sentences the caller has already
 * (`given`: the answer the passages come with) or an earlier passage holds (overlapping chunks, the
 * same text on two pages) are taken out; a passage left with nothing new is dropped. The passage
 * that does not fit whole is cut after its last sentence that fits (when at least one does); the
 * ones after it are counted as left out.
 *
 * With the question's `words`, the candidates are taken in the order of what they add, not only of
 * their rank: each time, the one whose question words no passage taken (nor `given`) holds yet weigh
 * the most for its size, its rank weighing in (RANK_SCALE); the best-ranked still comes first.
 */
export function packEvidence(candidates: readonly EvidenceCandidate[], budget: number, given = '', words?: QuestionWords): EvidenceSet {
  const seen = new Set(sentences(given).map(bare).filter((key) => key.length >= MIN_REPEAT));
  const covered = new Set(words?.of(given) ?? []);
  let total = 0;
  for (const weight of words?.weights.values() ?? []) total += weight;
  const passages: EvidencePassage[] = [];
  let tokens = 0;
  let leftOut = 0;
  let full = budget <= 0;
  // Short pieces ("Example:", a bare code line) are kept: they repeat without being the same text.
  const fresh = (pending: Pending) => withoutEmptyFences(pending.sentences.filter((sentence) => sentence.key === '' || !seen.has(sentence.key)));
  // The question words of each sentence, read once.
  const wordsOf = new Map<string, ReadonlySet<string>>();
  const held = (kept: readonly string[]): Set<string> => {
    const found = new Set<string>();
    if (words === undefined) return found;
    for (const sentence of kept) {
      let inSentence = wordsOf.get(sentence);
      if (inSentence === undefined) wordsOf.set(sentence, (inSentence = words.of(sentence)));
      for (const word of inSentence) found.add(word);
    }
    return found;
  };
  const value = (pending: Pending, kept: readonly string[], text: string): number => {
    const place = 1 / (1 + pending.rank / RANK_SCALE);
    if (words === undefined || total === 0) return place;
    let added = 0;
    for (const word of held(kept)) if (!covered.has(word)) added += words.weights.get(word) ?? 0;
    return (place * (1 + (COVERAGE_WORTH * added) / total)) / Math.max(MIN_COST, estimateTokens(text)) ** COST_POWER;
  };
  const pending: Pending[] = candidates.map((candidate, rank) => ({ candidate, rank, sentences: keyed(candidate.text) }));
  while (pending.length > 0) {
    // The first candidate is the best-ranked; with the question's words, the one that adds the most.
    let chosen = 0;
    let chosenText = '';
    let chosenSentences: string[] = [];
    let best = -Infinity;
    for (let i = 0; i < pending.length; i++) {
      const left = fresh(pending[i]!);
      if (!left.some((sentence) => sentence.says)) {
        pending.splice(i--, 1);
        continue;
      }
      const kept = left.map((sentence) => sentence.text);
      const text = kept.join('').trim();
      const worth = full || words === undefined || passages.length === 0 ? -i : value(pending[i]!, kept, text);
      if (worth > best) {
        best = worth;
        chosen = i;
        chosenText = text;
        chosenSentences = kept;
      }
      if (full || words === undefined || passages.length === 0) break;
    }
    if (best === -Infinity) break;
    const [{ candidate, sentences: all }] = pending.splice(chosen, 1) as [Pending];
    if (full) {
      leftOut++;
      continue;
    }
    let kept = chosenText;
    let cut = false;
    if (tokens + estimateTokens(chosenText) > budget) {
      let part = '';
      for (const sentence of chosenSentences) {
        if (estimateTokens((part + sentence).trim()) + tokens > budget) break;
        part += sentence;
      }
      full = true;
      if (part.trim() === '') {
        leftOut++;
        continue;
      }
      kept = part.trim();
      cut = true;
    }
    for (const { key } of all) if (key !== '') seen.add(key);
    for (const word of held(sentences(kept))) covered.add(word);
    tokens += estimateTokens(kept);
    passages.push({ ...candidate, text: kept, cut });
  }
  return { budget_tokens: Math.max(0, budget), tokens, passages, left_out: leftOut };
}

/** What the caller reads when passages were left out or cut: how to get more. */
export function evidenceNote(evidence: EvidenceSet): string | undefined {
  const cut = evidence.passages.some((passage) => passage.cut);
  if (evidence.left_out === 0 && !cut) return undefined;
  const parts = [];
  if (cut) parts.push('the last passage was cut');
  if (evidence.left_out > 0) parts.push(`${evidence.left_out} more passage${evidence.left_out === 1 ? ' was' : 's were'} left out`);
  const room = evidence.budget_tokens >= EVIDENCE_TOKENS_MAX ? '' : `: raise evidence_tokens (now ${evidence.budget_tokens}, at most ${EVIDENCE_TOKENS_MAX}) to see more`;
  return `${parts.join(' and ')} to keep within ${evidence.budget_tokens} tokens${room}.`.replace(/^./, (first) => first.toUpperCase());
}
