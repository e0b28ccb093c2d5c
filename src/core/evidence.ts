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
function sentences(text: string): string[] {
  return text.match(/[^]+?(?:[.!?]+(?=\s|$)|\n|$)\s*/gu) ?? [text];
}

/**
 * The candidates (best first) within `budget` estimated tokens. Sentences the caller has already
 * (`given`: the answer the passages come with) or an earlier passage holds (overlapping chunks, the
 * same text on two pages) are taken out; a passage left with nothing new is dropped. The passage
 * that does not fit whole is cut after its last sentence that fits (when at least one does); the
 * ones after it are counted as left out.
 */
export function packEvidence(candidates: readonly EvidenceCandidate[], budget: number, given = ''): EvidenceSet {
  const seen = new Set(sentences(given).map(bare).filter((key) => key.length >= MIN_REPEAT));
  const passages: EvidencePassage[] = [];
  let tokens = 0;
  let leftOut = 0;
  let full = budget <= 0;
  for (const candidate of candidates) {
    // Short pieces ("Example:", a bare code line) are kept: they repeat without being the same text.
    const fresh = sentences(candidate.text).filter((sentence) => {
      const key = bare(sentence);
      return key.length < MIN_REPEAT || !seen.has(key);
    });
    const text = fresh.join('').trim();
    if (text === '' || bare(text) === '') continue;
    if (full) {
      leftOut++;
      continue;
    }
    const cost = estimateTokens(text);
    let kept = text;
    let cut = false;
    if (tokens + cost > budget) {
      let part = '';
      for (const sentence of fresh) {
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
    for (const sentence of fresh) {
      const key = bare(sentence);
      if (key.length >= MIN_REPEAT) seen.add(key);
    }
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
