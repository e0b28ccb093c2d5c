/**
 * Checking a request against its schema. A request that does not fit is refused
 * with a message saying what is wrong with it ("labels must be an array of
 * strings"), in the operation's wording (src/core/errors.ts: invalidInput).
 * Messages name fields and limits, never the values sent.
 */
import type * as z from 'zod';
import { Errors, type Operation } from './errors.js';

/** Problems named in one message; a request with more says how many it left out. */
const MAX_NAMED_PROBLEMS = 3;

type Issue = z.core.$ZodRawIssue;

/** `text_sources[0].content`; the request itself when the path is empty. */
function subjectOf(path: readonly PropertyKey[]): string {
  if (path.length === 0) return 'The request';
  return path.map((key, index) => (typeof key === 'number' ? `[${key}]` : `${index === 0 ? '' : '.'}${String(key)}`)).join('');
}

const TYPE_NAMES: Readonly<Record<string, string>> = {
  string: 'a string',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  object: 'a JSON object',
  array: 'an array',
};

const PLURAL_TYPE_NAMES: Readonly<Record<string, string>> = {
  string: 'strings',
  number: 'numbers',
  int: 'whole numbers',
  boolean: 'booleans',
  object: 'objects',
};

/** What an invalid_type issue expected: "an array of strings", "a whole number". */
function expectedOf(issue: Extract<Issue, { code: 'invalid_type' }>): string {
  const name = TYPE_NAMES[issue.expected] ?? issue.expected;
  if (issue.expected !== 'array') return name;
  const element = (issue.inst as { _zod?: { def?: { element?: { _zod?: { def?: { type?: string } } } } } } | undefined)?._zod?.def
    ?.element?._zod?.def?.type;
  const elements = element === undefined ? undefined : PLURAL_TYPE_NAMES[element];
  return elements === undefined ? name : `${name} of ${elements}`;
}

const count = (n: number | bigint, unit: string) => `${n} ${unit}${Number(n) === 1 ? '' : 's'}`;

function sizeLimit(issue: Extract<Issue, { code: 'too_big' | 'too_small' }>, bound: 'at most' | 'at least'): string {
  const limit = issue.code === 'too_big' ? issue.maximum : issue.minimum;
  if (issue.origin === 'string') return `must be ${bound} ${count(limit, 'character')}`;
  if (issue.origin === 'array' || issue.origin === 'set') return `must have ${bound} ${count(limit, 'item')}`;
  if (issue.inclusive === false) return `must be ${bound === 'at most' ? 'less' : 'greater'} than ${limit}`;
  return `must be ${bound} ${limit}`;
}

/** One issue as a sentence: its field and what is wrong with it. */
function describeIssue(issue: Issue): string {
  const subject = subjectOf(issue.path ?? []);
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return `${subject} is required`;
      return `${subject} must be ${expectedOf(issue)}`;
    case 'too_big':
      return `${subject} ${sizeLimit(issue, 'at most')}`;
    case 'too_small':
      if (issue.origin === 'string' && Number(issue.minimum) === 1) return `${subject} must not be empty`;
      return `${subject} ${sizeLimit(issue, 'at least')}`;
    case 'invalid_value':
      return `${subject} must be ${issue.values.length === 1 ? '' : 'one of '}${issue.values.map((value) => JSON.stringify(value)).join(', ')}`;
    case 'invalid_format':
      if (issue.format === 'url') return `${subject} must be a URL`;
      if (issue.format === 'email') return `${subject} must be an email address`;
      return `${subject} is not in the expected format`;
    default:
      return `${subject} is not valid`;
  }
}

/** The problems of a request, for people and models to act on: `question is required; labels must be ...`. */
export function describeIssues(error: z.ZodError): string {
  const named = error.issues.slice(0, MAX_NAMED_PROBLEMS).map((issue) => issue.message);
  const more = error.issues.length - named.length;
  return more > 0 ? `${named.join('; ')}; and ${count(more, 'more problem')}` : named.join('; ');
}

export function parseRequest<S extends z.ZodType>(schema: S, value: unknown, operation: Operation): z.output<S> {
  // Messages the schemas set themselves (the spec's, like "Question is required") take precedence.
  const result = schema.safeParse(value, { error: describeIssue });
  if (result.success) return result.data;
  throw Errors.invalidInput(operation, describeIssues(result.error));
}

/** One part of a request checked on its own (one user of a bulk request): its value, or each of its problems. */
export function checkPart<S extends z.ZodType>(
  schema: S,
  value: unknown,
): { readonly ok: true; readonly value: z.output<S> } | { readonly ok: false; readonly problems: string[] } {
  const result = schema.safeParse(value, { error: describeIssue });
  return result.success ? { ok: true, value: result.data } : { ok: false, problems: result.error.issues.map((issue) => issue.message) };
}
