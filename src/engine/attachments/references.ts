/**
 * The words of a question that point at its attached files rather than at what to find in them:
 * "Why does my app log say the pool is exhausted?" asks about the pool; "my app log say" is the
 * file. Left in, they count against the very passages of the file: a log never says "log", "say"
 * or "my". Only phrases that clearly point (a determiner, then at most a name of the file or a
 * word such as "app" or "error", then a word for a file), and the files' own names, are taken out,
 * so that "the pool error" keeps its "pool".
 */

/** What a file sent with a question is called. */
const FILE_NOUNS = [
  'log file', 'log files', 'logfile', 'logfiles', 'logs', 'log', 'stack trace', 'stacktrace', 'traceback', 'trace',
  'error message', 'error messages', 'errors', 'error', 'attachment', 'attachments', 'file', 'files', 'pdf',
];
/** Words that point at something the reader has in front of them. */
const DETERMINERS = ['my', 'our', 'the', 'this', 'that', 'these', 'those', 'attached', 'above', 'following'];
/** Words that say whose or which file it is ("my app log", "this server error"). */
const QUALIFIERS = [
  'app', 'application', 'server', 'service', 'program', 'build', 'system', 'debug', 'error', 'crash', 'attached', 'above',
  'latest', 'last', 'new', 'same', 'whole', 'full',
];
/** What a file does in a question ("my log says", "this error means"). */
const VERBS = [
  'says', 'say', 'said', 'saying', 'shows', 'show', 'showed', 'showing', 'means', 'mean', 'meant', 'reports', 'report',
  'contains', 'contain', 'prints', 'print', 'printed', 'complains', 'complain', 'tells', 'tell',
];

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const anyOf = (words: readonly string[]): string => words.map((word) => escape(word).replace(/ /g, '\\s+')).join('|');

/** The words of a file name that name it: "app.log" → app, log; "crash-2024.txt" → crash. */
const nameWords = (name: string): string[] => name.toLowerCase().match(/\p{L}{2,}/gu) ?? [];

/** A function that takes out of a question the phrases pointing at the given files, and their names. */
export function attachmentReferences(fileNames: readonly string[]): (question: string) => string {
  const names = [...new Set(fileNames.flatMap(nameWords))];
  const qualifiers = anyOf([...QUALIFIERS, ...names]);
  const pointing = new RegExp(
    `\\b(?:${anyOf(DETERMINERS)})(?:\\s+(?:${qualifiers})){0,2}\\s+(?:${anyOf(FILE_NOUNS)})(?:['’]s)?\\b(?:\\s+(?:${anyOf(VERBS)})\\b)?`,
    'giu',
  );
  const written = fileNames.filter((name) => name.trim() !== '').map((name) => escape(name.trim()));
  const named = written.length > 0 ? new RegExp(`(?<![\\p{L}\\p{N}])(?:${written.join('|')})(?![\\p{L}\\p{N}])`, 'giu') : undefined;
  return (question) => (named ? question.replace(named, ' ') : question).replace(pointing, ' ').replace(/\s+/g, ' ').trim();
}
