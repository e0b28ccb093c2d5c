import { describe, expect, it } from 'vitest';
import { MarkdownBlocks } from '../../src/cli/markdown-blocks.js';

/** Streams `text` in pieces of `size` characters; answers the blocks handed out, the rest last. */
function blocksOf(text: string, size: number): string[] {
  const blocks = new MarkdownBlocks();
  const out: string[] = [];
  for (let at = 0; at < text.length; at += size) {
    const complete = blocks.push(text.slice(at, at + size));
    if (complete !== '') out.push(complete);
  }
  out.push(blocks.flush());
  return out;
}

describe('MarkdownBlocks', () => {
  it('hands out each paragraph once the next one begins, losing nothing', () => {
    const text = 'First **bold** paragraph.\n\nSecond one\nwith two lines.\n\nLast.\n';
    for (const size of [1, 3, 7, text.length]) {
      const blocks = blocksOf(text, size);
      expect(blocks.join('')).toBe(text);
      if (size < text.length) expect(blocks).toEqual(['First **bold** paragraph.\n\n', 'Second one\nwith two lines.\n\n', 'Last.\n']);
    }
  });

  it('keeps a code fence with blank lines, and a loose list, in one block', () => {
    const text = '```sql\nSELECT 1;\n\nSELECT 2;\n```\n\n1. one\n\n2. two\n\n   more of two\n\nAfter.\n';
    expect(blocksOf(text, 2)).toEqual(['```sql\nSELECT 1;\n\nSELECT 2;\n```\n\n', '1. one\n\n2. two\n\n   more of two\n\n', 'After.\n']);
  });

  it('waits for a line to be complete before cutting before it', () => {
    const blocks = new MarkdownBlocks();
    expect(blocks.push('Intro.\n\nNext')).toBe('');
    expect(blocks.push(' paragraph.\n')).toBe('Intro.\n\n');
    expect(blocks.push('\n- item')).toBe('');
    expect(blocks.push('\n')).toBe('Next paragraph.\n\n');
    expect(blocks.flush()).toBe('- item\n');
  });
});
