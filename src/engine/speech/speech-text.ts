/**
 * Text made ready to be read aloud (version 1, as the spec says): text in triple
 * backticks becomes "Code block", in single backticks "Inline code"; the rest is
 * Markdown read as a person would read it (links as their text, no heading marks,
 * list bullets or emphasis characters), and an answer's leading heading that only
 * repeats the question is left out.
 */
import { linkTexts } from '../text/links.js';

/**
 * A fenced block on lines of its own: backticks or tildes, closed by a fence of the same kind at
 * least as long (answers lengthen a fence around code that holds backticks), or by the end.
 */
const FENCED_BLOCK = /^ {0,3}(`{3,}|~{3,})([^\n]*)\n[\s\S]*?(?:^ {0,3}\1[`~]*[ \t]*$|(?![\s\S]))/gm;
/** Triple backticks within a line. */
const FENCED_CODE = /```([^\n`]*)\n?[\s\S]*?(?:```|$)/g;
const INLINE_CODE = /`([^`\n]+)`/g;

/** The words spoken in place of code, by version 1. */
export const CODE_BLOCK_WORDS = 'Code block';
export const INLINE_CODE_WORDS = 'Inline code';

/**
 * How code is said: `named` as the spec's version 1 says ("Code block",
 * "Inline code"); `described` for the provider voice (version 2): a block as "a
 * code example in Python" (its fence's language), inline code as its words.
 */
export type CodeReading = 'named' | 'described';

/** The text to synthesize for `text`; `question`, when known, drops a first heading that repeats it. */
export function speechText(text: string, question?: string, code: CodeReading = 'named'): string {
  const withoutCode =
    code === 'named'
      ? text
          .replace(FENCED_BLOCK, `\n${CODE_BLOCK_WORDS}.\n`)
          .replace(FENCED_CODE, `\n${CODE_BLOCK_WORDS}.\n`)
          .replace(INLINE_CODE, INLINE_CODE_WORDS)
      : text
          .replace(FENCED_BLOCK, (_, _fence: string, info: string) => `\nHere is ${codeExample(info)}.\n`)
          .replace(FENCED_CODE, (_, info: string) => `\nHere is ${codeExample(info)}.\n`)
          .replace(INLINE_CODE, (_, words: string) => words);
  const lines = withoutCode.split(/\r?\n/);
  const first = lines.findIndex((line) => line.trim() !== '');
  if (first >= 0 && isLeadingQuestionHeading(lines[first] ?? '', question)) lines.splice(first, 1);
  return lines
    .map(readLine)
    .filter((line) => line !== '')
    .map((line) => (/[.!?:;]$/.test(line) ? line : `${line}.`))
    .join('\n');
}

/** "a code example in Python" from a fence's info string (`python`, `ts title=x`…). */
function codeExample(info: string): string {
  const language = /^[\w+#-]+/.exec(info.trim())?.[0].toLowerCase();
  if (language === undefined) return 'a code example';
  return `a code example in ${LANGUAGE_NAMES[language] ?? language.charAt(0).toUpperCase() + language.slice(1)}`;
}

const LANGUAGE_NAMES: Readonly<Record<string, string>> = {
  js: 'JavaScript',
  javascript: 'JavaScript',
  ts: 'TypeScript',
  typescript: 'TypeScript',
  py: 'Python',
  sh: 'the shell',
  bash: 'the shell',
  shell: 'the shell',
  console: 'the shell',
  sql: 'SQL',
  json: 'JSON',
  yaml: 'YAML',
  yml: 'YAML',
  html: 'HTML',
  css: 'CSS',
  'c++': 'C plus plus',
  cpp: 'C plus plus',
  'c#': 'C sharp',
  csharp: 'C sharp',
  rb: 'Ruby',
  rs: 'Rust',
  go: 'Go',
  kt: 'Kotlin',
};

/** A heading that restates the question; without a question, a heading ending in "?". */
function isLeadingQuestionHeading(line: string, question: string | undefined): boolean {
  const heading = /^\s{0,3}#{1,6}\s+(.*)$/.exec(line)?.[1];
  if (heading === undefined) return false;
  if (question === undefined) return heading.trim().endsWith('?');
  return comparable(heading) === comparable(question);
}

const comparable = (text: string) => text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();

/** One Markdown line as its spoken words. */
function readLine(line: string): string {
  return linkTexts(line) // links by their text, images by their alt text
    .replace(/\[([^\]]+)\]\[[^\]]*\]/g, '$1')
    .replace(/<(https?:\/\/[^>]+)>/g, '$1')
    .replace(/<\/?[a-z][^>]*>/gi, '') // inline HTML tags
    .replace(/^\s{0,3}#{1,6}\s+/, '') // heading marks
    .replace(/\s+#+\s*$/, '')
    .replace(/^\s*>\s?/, '') // quotes
    .replace(/^\s*(?:[-*+]|\d+[.)])\s+/, '') // list bullets and numbers
    .replace(/^\s*(?:[-*_]\s*){3,}$/, '') // rules
    .replace(/^\s*\|?(?:\s*:?-+:?\s*\|)+\s*:?-*:?\s*$/, '') // table separators
    .replace(/\s*\|\s*/g, ', ')
    .replace(/(\*{1,3}|_{1,3}|~~)(\S(?:[\s\S]*?\S)?)\1/g, '$2') // emphasis
    .replace(/^[,\s]+|[,\s]+$/g, '')
    .trim();
}

/** Sentences of prepared text, each short enough to synthesize at once and none empty. */
export function sentencesOf(text: string, maxChars = 400): string[] {
  const sentences: string[] = [];
  for (const line of text.split('\n')) {
    // A sentence ends at punctuation followed by a space, not inside `frob.run()` or 3.5.
    for (const piece of line.split(/(?<=[.!?;:])\s+/)) {
      const sentence = piece.trim();
      if (sentence === '' || !/[\p{L}\p{N}]/u.test(sentence)) continue;
      sentences.push(...splitLong(sentence, maxChars));
    }
  }
  return sentences;
}

/** A run-on sentence cut at word boundaries. */
function splitLong(sentence: string, maxChars: number): string[] {
  if (sentence.length <= maxChars) return [sentence];
  const parts: string[] = [];
  let current = '';
  for (const word of sentence.split(/\s+/)) {
    if (current !== '' && current.length + word.length + 1 > maxChars) {
      parts.push(current);
      current = '';
    }
    current = current === '' ? word.slice(0, maxChars) : `${current} ${word}`;
  }
  if (current !== '') parts.push(current);
  return parts;
}
