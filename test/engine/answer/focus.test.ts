import { describe, expect, it } from 'vitest';
import { asksHow, showsIntroducedCommand } from '../../../src/engine/answer/focus.js';

describe('asksHow', () => {
  it('tells a question asking how to do something from one asking what something is', () => {
    expect(asksHow('How do I switch to the new mode?')).toBe(true);
    expect(asksHow('My checks are ignored. What do I have to turn on?')).toBe(true);
    expect(asksHow('Can I make ids never be reused?')).toBe(true);
    expect(asksHow('What is the biggest a file can get?')).toBe(false);
    expect(asksHow('Is it safe to share one connection between threads?')).toBe(false);
  });
});

describe('showsIntroducedCommand', () => {
  it('holds for a short command, fenced or quoted, right after the sentence that introduces it', () => {
    expect(showsIntroducedCommand('To convert, run:\n\n```\nSET mode = on;\n```')).toBe(true);
    expect(showsIntroducedCommand('To convert, run:\n\n> ```\n> SET mode = on;\n> ```')).toBe(true);
  });

  it('fails for code nobody introduced, and for a long listing', () => {
    expect(showsIntroducedCommand('The mode is kept.\n\n```\nSET mode = on;\n```')).toBe(false);
    const listing = Array.from({ length: 20 }, (_, i) => `step ${i};`).join('\n');
    expect(showsIntroducedCommand(`For example:\n\n\`\`\`\n${listing}\n\`\`\``)).toBe(false);
  });
});
