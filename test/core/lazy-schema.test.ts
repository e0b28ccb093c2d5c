/** A lazy schema is built on first use and then behaves as the schema itself. */
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { lazySchema } from '../../src/core/lazy-schema.js';

/** A lazy object schema and how many times it was built. */
function counted() {
  let builds = 0;
  const schema = lazySchema(() => {
    builds += 1;
    return z.object({ name: z.string().min(1), tags: z.array(z.string()).optional() });
  });
  return { schema, builds: () => builds };
}

describe('lazySchema', () => {
  it('is built on the first use only, once', () => {
    const { schema, builds } = counted();
    const holder = lazySchema(() => z.object({ item: schema }));
    expect(builds()).toBe(0);
    expect(holder.safeParse({ item: { name: 'a' } }).success).toBe(true);
    expect(builds()).toBe(1);
    expect(schema.parse({ name: 'b' })).toEqual({ name: 'b' });
    expect(builds()).toBe(1);
  });

  it('validates, derives and converts as the schema it stands for', () => {
    const { schema } = counted();
    const eager = z.object({ name: z.string().min(1), tags: z.array(z.string()).optional() });
    expect(schema.safeParse({ name: '' }).error?.issues).toEqual(eager.safeParse({ name: '' }).error?.issues);
    expect(schema instanceof z.ZodObject).toBe(true);
    expect(Object.keys(schema.shape)).toEqual(['name', 'tags']);
    expect(schema.extend({ size: z.number() }).parse({ name: 'a', size: 1 })).toEqual({ name: 'a', size: 1 });
    expect(z.toJSONSchema(z.object({ list: z.array(schema) }))).toEqual(z.toJSONSchema(z.object({ list: z.array(eager) })));
    expect(schema['~standard'].validate({ name: 'a' })).toEqual({ value: { name: 'a' } });
    expect('~standard' in schema).toBe(true);
  });
});
