/**
 * Concise text renderings of results, for the model to read. The structured
 * content carries every field; these carry what matters, in Markdown.
 */
import { evidenceNote, type EvidencePassage, type EvidenceSet } from '../core/evidence.js';
import type {
  Answer,
  ConversationTurn,
  DataSource,
  Guru,
  Reference,
  SemanticSearchResponse,
  SessionConversation,
  SessionList,
  SessionSummary,
} from '../core/schemas.js';

/** "Title › Heading › Heading — link" */
function passagePlace(passage: EvidencePassage): string {
  const place = [passage.title.trim(), ...passage.headings].filter((part) => part !== '').join(' › ') || '(untitled)';
  return passage.link ? `${place} — ${passage.link}` : place;
}

/**
 * The passages as Markdown sections, best first, each under its place ("[2] Title › Heading — link")
 * and marked when cut, then the note on what was left out. `heading` names the section.
 */
export function renderPassages(heading: string, evidence: EvidenceSet, label: (passage: EvidencePassage, index: number) => string): string {
  const lines = [`${heading} (${evidence.passages.length}, about ${evidence.tokens} of ${evidence.budget_tokens} tokens):`];
  if (evidence.passages.length === 0) lines.push('None found.');
  evidence.passages.forEach((passage, index) => {
    lines.push('', `### ${label(passage, index)} ${passagePlace(passage)}`, '', passage.text.trim() + (passage.cut ? ' […cut]' : ''));
  });
  const note = evidenceNote(evidence);
  if (note !== undefined) lines.push('', note);
  return lines.join('\n');
}

function referenceLine(reference: Reference, index: number): string {
  const title = reference.title.trim() || reference.link;
  const link = reference.link && reference.link !== title ? ` — ${reference.link}` : '';
  return `${index + 1}. ${title}${link}${reference.inherited ? ' (attachment from an earlier turn)' : ''}`;
}

/** What the answer's evidence section says when the backend has no passages (the hosted REST API). */
export const NO_PASSAGES = 'Passages: not available here (this server answers through a hosted REST API, which returns answers and references only).';

export function renderAnswer(answer: Answer): string {
  return [answer.content.trim(), '', '---', renderAnswerFields(answer)].join('\n');
}

/** The answer's fields after its text: note, trust score, session, references. */
export function renderAnswerFields(answer: Answer): string {
  const lines: string[] = [];
  if (answer.attachment_note) lines.push(`Note: ${answer.attachment_note}`);
  lines.push(
    `Trust score: ${answer.trust_score}/100 · Session: ${answer.session_id} (pass it as session_id to ask a follow-up)`,
  );
  if (answer.references.length > 0) {
    lines.push('References:', ...answer.references.map(referenceLine));
  } else {
    lines.push('References: none');
  }
  return lines.join('\n');
}

const SEARCH_MODES = { hybrid: 'hybrid (words and meaning)', lexical: 'lexical (words only)' } as const;

/**
 * The sources, best first, each followed by its excerpts when `evidence` has some. `evidence` undefined
 * with a budget asked for: the backend has no passages (NO_PASSAGES is said).
 */
export function renderSearch(question: string, result: SemanticSearchResponse, evidence?: EvidenceSet, budget = 0): string {
  const mode = result.search_mode === undefined ? [] : [`Search mode: ${SEARCH_MODES[result.search_mode]}`];
  if (result.sources.length === 0) {
    return [`No sources matched "${question}". Try other words or fewer labels, or add knowledge with add_sources.`, ...mode].join('\n');
  }
  const lines = result.sources.map((source, index) => {
    const where = source.link ? ` — ${source.link}` : ' (internal source)';
    const labels = source.labels.length > 0 ? ` [labels: ${source.labels.join(', ')}]` : '';
    const excerpts = evidence?.passages.filter((passage) => passage.source === index) ?? [];
    const quoted = excerpts.map((excerpt) => `\n${excerpt.text.trim().replace(/^/gm, '   > ')}${excerpt.cut ? ' […cut]' : ''}`).join('\n   >');
    return `${index + 1}. ${source.title}${where}${labels}${quoted}`;
  });
  const note = evidence === undefined ? (budget > 0 ? [NO_PASSAGES] : []) : [evidenceNote(evidence)?.replace(/passage/g, 'excerpt')].filter((line) => line !== undefined);
  return [`${result.total_sources} source(s) related to "${question}":`, ...lines, ...note, ...mode].join('\n');
}

export function renderSourcePage(page: {
  count: number;
  page: number;
  page_size: number;
  next_page: number | null;
  results: DataSource[];
}): string {
  if (page.count === 0) return 'This guru has no data sources yet. Add some with add_sources.';
  if (page.results.length === 0) {
    return `Page ${page.page} is past the end: there are ${page.count} source(s), ${page.page_size} per page. Use a lower page.`;
  }
  const first = (page.page - 1) * page.page_size + 1;
  const last = first + page.results.length - 1;
  const lines = page.results.map((source) => {
    const name = source.title ?? source.url ?? '(untitled)';
    const url = source.url && source.url !== name ? ` ${source.url}` : '';
    const error = source.status === 'FAIL' && source.error ? ` — error: ${source.error}` : '';
    return `#${source.id} ${source.type} ${source.status} "${name}"${url}${error}`;
  });
  const header = `Sources ${first}–${last} of ${page.count} (page ${page.page}, newest first):`;
  const footer =
    page.next_page === null
      ? 'This is the last page.'
      : `More sources exist: call list_sources with page=${page.next_page} (page_size=${page.page_size}) for the next page.`;
  return [header, ...lines, footer].join('\n');
}

function sessionLine(session: SessionSummary): string {
  return `- ${session.root_question_name || '(no question)'} — session_id ${session.id}, last used ${session.last_used}`;
}

export function renderSessionList(list: SessionList, pageNum: number): string {
  const groups: [string, SessionSummary[]][] = [
    ['Today', list.today],
    ['Last 7 days', list.last_week],
    ['Older', list.older],
  ];
  const lines: string[] = [];
  for (const [title, sessions] of groups) {
    if (sessions.length === 0) continue;
    lines.push(`${title}:`, ...sessions.map(sessionLine));
  }
  if (lines.length === 0) return pageNum > 1 ? `No sessions on page ${pageNum}.` : 'No sessions found.';
  lines.push(
    list.has_more
      ? `More sessions exist: call list_sessions with page_num=${pageNum + 1}.`
      : 'Read one with get_session (session_id), or continue it with ask (session_id).',
  );
  return lines.join('\n');
}

function renderTurn(turn: ConversationTurn, number: number): string {
  const lines = [`## ${number}. ${turn.user_question || turn.question}`, '', turn.answer.trim(), ''];
  const references = turn.references.map((reference) =>
    reference.link ? `[${reference.title || reference.link}](${reference.link})` : reference.title,
  );
  lines.push(
    `Trust score ${turn.trust_score}/100${references.length > 0 ? ` · References: ${references.join(', ')}` : ''}${turn.user_vote ? ` · Vote: ${turn.user_vote}` : ''}`,
  );
  return lines.join('\n');
}

/** The conversation as Markdown; `firstNumber` is the 1-based number of the first turn given. */
export function renderConversation(session: SessionConversation, turns: ConversationTurn[], firstNumber: number): string {
  const header = `# Session ${session.binge_id}\n\nStarted ${session.date_created}, last used ${session.last_used}, ${session.conversation.length} turn(s).`;
  return [header, ...turns.map((turn, index) => renderTurn(turn, firstNumber + index))].join('\n\n');
}

export function renderGurus(gurus: Guru[]): string {
  if (gurus.length === 0) return 'No gurus yet. Create one with create_guru.';
  return [`${gurus.length} guru(s):`, ...gurus.map((guru) => `- ${guru.slug} — ${guru.name} (created ${guru.date_created})`)].join('\n');
}
