/** The Markdown that extractive answers quote: blocks, fences as renderers read them, lead-ins. */
import { describe, expect, it } from 'vitest';
import { closeOpenFence, isLeadIn, normalizeFence, splitBlocks, wordCount } from '../../../src/engine/answer/markdown.js';

describe('splitBlocks', () => {
  it('keeps a fenced block whole, blank lines included, and tells the kinds apart', () => {
    const blocks = splitBlocks('Run this:\n\n```sh\nnpm install\n\nnpm test\n```\n\n- one\n- two\n\n| a | b |\n|---|---|\n\n> quoted');
    expect(blocks.map((block) => block.kind)).toEqual(['prose', 'code', 'list', 'table', 'quote']);
    expect(blocks[1]?.text).toBe('```sh\nnpm install\n\nnpm test\n```');
  });

  it('keeps a list whole over the blank lines inside and between its items (a table written as a list of rows)', () => {
    const list = ['-   `->` gets a field', '', '    ```', '    SELECT 1;', '', '    SELECT 2;', '    ```', '', '-   `#>` gets a path', '', '    by keys'].join('\n');
    const blocks = splitBlocks(`**Operator / Description**\n\n${list}\n\nAfter the list.\n\n    indented code`);
    expect(blocks).toEqual([
      { kind: 'prose', text: '**Operator / Description**' },
      { kind: 'list', text: list },
      { kind: 'prose', text: 'After the list.' },
      { kind: 'code', text: '    indented code' },
    ]);
  });

  it('ends a fence at an indented closing fence, as the page meant, and writes it at the margin', () => {
    const blocks = splitBlocks('```\nSELECT 1;\n      ```\n\nafter');
    expect(blocks).toEqual([
      { kind: 'code', text: '```\nSELECT 1;\n```' },
      { kind: 'prose', text: 'after' },
    ]);
  });
});

describe('normalizeFence', () => {
  it('closes an indented closing fence at the margin', () => {
    expect(normalizeFence('```sql\nSELECT 1;\n      ```')).toBe('```sql\nSELECT 1;\n```');
  });

  it('closes an unclosed fence, longer than any backtick run inside it', () => {
    expect(normalizeFence('```md\nuse ```` here')).toBe('`````md\nuse ```` here\n`````');
  });
});

describe('closeOpenFence', () => {
  it('appends the closing fence that text leaves open', () => {
    expect(closeOpenFence('From **x** [1]:\n\n~~~\ncode')).toBe('From **x** [1]:\n\n~~~\ncode\n~~~\n');
  });

  it('does not take a fence indented four spaces as closing, as renderers do not', () => {
    expect(closeOpenFence('```\ncode\n    ```')).toBe('```\ncode\n    ```\n```\n');
  });

  it('leaves text whose fences are closed alone', () => {
    const text = 'a\n\n```\nb\n```\n';
    expect(closeOpenFence(text)).toBe(text);
  });
});

describe('isLeadIn and wordCount', () => {
  it('takes a prose block ending with a colon as a lead-in, not code or a list', () => {
    expect(isLeadIn({ kind: 'prose', text: 'To create an index without locking out writes:' })).toBe(true);
    expect(isLeadIn({ kind: 'prose', text: 'An index.' })).toBe(false);
    expect(isLeadIn({ kind: 'code', text: '```\nfoo:\n```' })).toBe(false);
  });

  it('counts the words a reader reads, not link targets', () => {
    expect(wordCount('See [the vacuum page](http://127.0.0.1:8080/lang_vacuum.html) now.')).toBe(5);
  });
});
