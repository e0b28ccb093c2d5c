/**
 * Building tool results: structured content with a concise text rendering for
 * successes, and `isError` results carrying the spec's message (plus what to do
 * about it) for failures. Internals never reach the client.
 */
import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/server';
import { Errors, isGuruError } from '../core/errors.js';
import type { Operation } from '../core/errors.js';
import { describeError, type Logger } from '../log.js';

export function toolResult(
  structured: Record<string, unknown>,
  text: string,
  extra: ContentBlock[] = [],
): CallToolResult {
  return { content: [{ type: 'text', text }, ...extra], structuredContent: structured };
}

export function toolError(error: unknown, context: { operation: Operation; tool: string; logger: Logger; signal?: AbortSignal }): CallToolResult {
  let guruError;
  if (isGuruError(error)) {
    guruError = error;
  } else {
    if (context.signal?.aborted) {
      context.logger.debug('mcp tool cancelled', { tool: context.tool });
    } else {
      context.logger.error('mcp tool failed', { tool: context.tool, error: describeError(error) });
    }
    guruError = Errors.internal(context.operation);
  }
  const text = guruError.hint === undefined ? guruError.message : `${guruError.message}\n${guruError.hint}`;
  return { isError: true, content: [{ type: 'text', text }] };
}
