import { describe, expect, it } from 'vitest';
import { questionAbout } from '../../../src/engine/follow-ups/phrasing.js';

describe('questionAbout', () => {
  it.each([
    ['Installing Frobnicator › Requirements', 'What should I know about requirements when installing Frobnicator?'],
    ['Configuring Frobnicator › The configuration file', 'What should I know about the configuration file when configuring Frobnicator?'],
    ['The frob command › Logs', 'What should I know about logs in the frob command?'],
    ['Guide › API keys', 'What should I know about API keys in guide?'],
    ['Node.js setup', 'What should I know about Node.js setup?'],
    ['Pancakes', 'What should I know about pancakes?'],
    ['Frobnicator › Installing Frobnicator', 'What does installing Frobnicator involve?'],
    ['FAQ › How do I reset my password', 'How do I reset my password?'],
    ['FAQ › Can I pay by invoice?', 'Can I pay by invoice?'],
    // A word capitalised inside a heading is a name, kept as written wherever it comes first.
    ['Installing Frobnicator › Frobnicator plugins', 'What should I know about Frobnicator plugins when installing Frobnicator?'],
    ['Reference ›   Exit   codes:  ', 'What should I know about exit codes in reference?'],
  ])('%s -> %s', (headings, question) => {
    expect(questionAbout(headings)).toBe(question);
  });

  it('has no question for a section without a heading', () => {
    expect(questionAbout('')).toBeUndefined();
    expect(questionAbout(' › ')).toBeUndefined();
  });

  it.each(['M', 'Index › m', '\\_', '#', '1.2', 'Index › abort() (in module flask)', 'aborter (flask.Flask attribute)', 'AppGroup (class in flask.cli)'])(
    'has no question for an index letter, a symbol or an index entry: %s',
    (headings) => {
      expect(questionAbout(headings)).toBeUndefined();
    },
  );
});
