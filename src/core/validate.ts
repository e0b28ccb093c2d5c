/** Checking a request against its schema, failing with the operation's own wording. */
import type { z } from 'zod';
import { Errors, type Operation } from './errors.js';

/** `field: problem; field: problem`, for people and models to act on. */
export const describeIssues = (error: z.ZodError): string =>
  error.issues.map((issue) => (issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message)).join('; ');

export function parseRequest<S extends z.ZodType>(schema: S, value: unknown, operation: Operation): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw Errors.invalidRequest(operation, describeIssues(result.error));
}
