import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import { renderSession } from '../../src/cli/commands/session.js';
import { terminalMarkdown } from '../../src/cli/markdown.js';
import type { SessionConversation } from '../../src/core/schemas.js';

const session: SessionConversation = {
  binge_id: 'b1',
  root_question_slug: 'how-do-i-restore-a-dump',
  date_created: '2026-01-02T10:00:00.000Z',
  last_used: '2026-01-02T10:05:00.000Z',
  conversation: [
    {
      id: 'q1',
      slug: 'how-do-i-restore-a-dump',
      user_question: 'How do I restore a dump?',
      question: 'How do I restore a dump?',
      answer: 'From **backup.md** [1]:\n\nUse pg\\_restore to load it: `pg_restore -d db dump`.',
      date_created: '2026-01-02T10:00:00.000Z',
      date_updated: '2026-01-02T10:00:00.000Z',
      references: [{ title: 'backup.md', link: 'https://example.com/backup', icon: '' }],
      trust_score: 80,
      parent_slug: null,
      source: 'CLI',
      user_vote: null,
    },
  ],
};

/** Hints name the program as it was run (invocation.ts); here, as from the PATH. */
const command = (words: string) => `guru-mcp ${words}`;

describe('renderSession', () => {
  it('shows each question with its answer rendered for a terminal, its trust score and references', () => {
    // Colours depend on where the tests run; the words do not.
    const text = stripVTControlCharacters(renderSession(session, 'pg', command, terminalMarkdown(80)).join('\n'));
    expect(text).toContain('Session b1: 1 question, started 2026-01-02T10:00:00.000Z, last used 2026-01-02T10:05:00.000Z');
    expect(text).toContain('[1] 2026-01-02T10:00:00.000Z\nQ: How do I restore a dump?\n\nFrom backup.md [1]:');
    expect(text).toContain('Use pg_restore to load it: pg_restore -d db dump.');
    expect(text).toContain('Trust score: 80/100\nReferences:\n  1. backup.md <https://example.com/backup>');
    expect(text).toMatch(/Follow up: guru-mcp ask pg --session b1 <question\.\.\.>$/);
  });

  it('keeps the Markdown without a renderer', () => {
    expect(renderSession(session, 'pg', command).join('\n')).toContain('Use pg\\_restore to load it: `pg_restore -d db dump`.');
  });
});
