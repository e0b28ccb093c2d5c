import { describe, expect, it } from 'vitest';
import { closesFence, openingFence } from '../../../src/engine/text/fences.js';

describe('fences', () => {
  it('opens on three or more backticks or tildes after at most three columns of indent', () => {
    expect(openingFence('```sql')).toEqual({ char: '`', length: 3, info: 'sql' });
    expect(openingFence('   ~~~~')).toEqual({ char: '~', length: 4, info: '' });
    expect(openingFence('    ```')).toBeUndefined();
    expect(openingFence('\t```')).toBeUndefined();
    expect(openingFence('      ```', { anyIndent: true })).toMatchObject({ char: '`' });
    expect(openingFence('``')).toBeUndefined();
    // A model's CRLF lines: the \r is not part of the info string, and does not stop the fence.
    expect(openingFence('```python\r')).toEqual({ char: '`', length: 3, info: 'python' });
  });

  it('does not take inline code for a fence', () => {
    expect(openingFence('```a``` is code')).toBeUndefined();
    expect(openingFence('~~~ a`b')).toMatchObject({ char: '~', info: 'a`b' });
  });

  it('closes with at least as many of the same marker; strictly only at three columns of indent or less', () => {
    const fence = openingFence('````')!;
    expect(closesFence('````', fence)).toBe(true);
    expect(closesFence('`````', fence)).toBe(true);
    expect(closesFence('```', fence)).toBe(false);
    expect(closesFence('~~~~', fence)).toBe(false);
    expect(closesFence('```` x', fence)).toBe(false);
    expect(closesFence('        ````', fence)).toBe(true);
    expect(closesFence('        ````', fence, { strict: true })).toBe(false);
    expect(closesFence('   ````', fence, { strict: true })).toBe(true);
  });
});
