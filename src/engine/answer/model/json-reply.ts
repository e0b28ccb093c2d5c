/**
 * A model's JSON reply, read leniently: models asked for JSON still wrap it in
 * a code fence or a sentence now and then. Whatever cannot be read as the
 * expected shape is undefined, never an error: every caller has a fallback.
 */
import type * as z from 'zod';

export function jsonReply<T>(text: string, shape: z.ZodType<T>): T | undefined {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start === -1 || end < start) return undefined;
  try {
    const parsed = shape.safeParse(JSON.parse(text.slice(start, end + 1)));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
