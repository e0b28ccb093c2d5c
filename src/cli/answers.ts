/** An answer's trust score, references and session, as `ask` and `session` show them. */
import type { Answer, Reference } from '../core/schemas.js';
import type { CommandLine } from './invocation.js';
import { shellQuote } from './output.js';

export function referenceLines(references: readonly Reference[]): string[] {
  if (references.length === 0) return [];
  return ['References:', ...references.map((reference, index) => `  ${index + 1}. ${reference.title}${reference.link ? ` <${reference.link}>` : ''}`)];
}

/** What follows the answer text: how far to trust it, where it comes from, how to go on (`command`: invocation.ts). */
export function renderAnswerFooter(answer: Answer, slug: string, command: CommandLine): string[] {
  return [
    '',
    `Trust score: ${answer.trust_score}/100`,
    ...referenceLines(answer.references),
    `Session: ${answer.session_id}`,
    `Follow up: ${command(`ask ${shellQuote(slug)} --session ${shellQuote(answer.session_id)} <question...>`)}`,
    ...(answer.can_receive_feedback ? [`Vote: ${command(`vote ${shellQuote(slug)} ${shellQuote(answer.slug)} up|down`)}`] : []),
  ];
}
