/**
 * The answer an MCP `ask` result carries: its fields in the structured content, its text as the
 * first text content (structured content does not repeat it).
 */
import type { CallToolResult } from '@modelcontextprotocol/client';
import { Answer } from '../../src/core/schemas.js';

export function answerOf(result: unknown): Answer {
  const { content, structuredContent } = result as CallToolResult;
  const first = content.find((block) => block.type === 'text');
  return Answer.parse({ ...(structuredContent ?? {}), content: first?.type === 'text' ? first.text : undefined });
}
