/**
 * A section's heading path as a question a user would ask about it, without a
 * language model: "Installing Frobnicator › Requirements" becomes "What should
 * I know about requirements when installing Frobnicator?". Only heading text
 * is used, never a document's name (private documents are never named).
 */
import { HEADING_SEPARATOR } from '../store/chunks.js';

const QUESTION_WORD = /^(how|what|why|when|where|which|who|can|could|should|do|does|is|are|will)\b/i;
/** "Installing Frobnicator", "Configuring the cache": an activity rather than a thing. */
const GERUND = /^\p{Lu}\p{Ll}+ing\b/u;

/** Words written capitalised after the start of a heading ("Installing Frobnicator"): names, kept as written. */
function namesIn(headings: readonly string[]): Set<string> {
  return new Set(headings.flatMap((heading) => heading.split(/\s+/).slice(1).filter((word) => /^\p{Lu}/u.test(word))));
}

/** Lower-cases an ordinary capitalised first word ("Environment variables"), never a name ("API keys", "Node.js", a known name). */
function lowerFirst(text: string, names: ReadonlySet<string>): string {
  const [first = ''] = text.split(/\s/, 1);
  return /^\p{Lu}\p{Ll}*$/u.test(first) && !names.has(first) ? text.charAt(0).toLowerCase() + text.slice(1) : text;
}

/** A word of two letters or more: a heading without one ("M", "_", "#", "1.2") names no topic to ask about. */
const WORD = /\p{L}{2,}/u;
/** A generated index's entry made a heading: "abort() (in module flask)", "aborter (flask.Flask attribute)". */
const INDEX_ENTRY = /\((?:in module [\w.]+|class in [\w.]+|[\w.]+ (?:attribute|method|property|class method|static method))\)$/;

/** Whether a heading names something a user would ask about: not a letter of an A–Z index, a symbol or an index entry. */
function asksAbout(heading: string): boolean {
  const text = heading.replace(/\\(.)/g, '$1');
  return WORD.test(text) && !INDEX_ENTRY.test(text);
}

const clean = (heading: string): string => heading.trim().replace(/\s+/g, ' ').replace(/[\s:;,.!]+$/u, '');

/** The question a section's heading path asks, or undefined when it has no heading to ask about. */
export function questionAbout(headingPath: string): string | undefined {
  const headings = headingPath.split(HEADING_SEPARATOR).map(clean).filter((heading) => heading !== '');
  const section = headings.at(-1);
  if (section === undefined || !asksAbout(section)) return undefined;
  if (section.endsWith('?')) return section;
  if (QUESTION_WORD.test(section)) return `${section}?`;
  const names = namesIn(headings);
  if (GERUND.test(section)) return `What does ${lowerFirst(section, names)} involve?`;
  const topic = headings.length > 1 ? headings[0] : undefined;
  const context =
    topic === undefined || section.toLowerCase().includes(topic.toLowerCase())
      ? ''
      : `${GERUND.test(topic) ? ' when' : ' in'} ${lowerFirst(topic, names)}`;
  return `What should I know about ${lowerFirst(section, names)}${context}?`;
}
