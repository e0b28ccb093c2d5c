/**
 * A question whose extractive answer runs to many lines (so `ask` streams it
 * in many progress notifications), and asking it the way an MCP host does:
 * with the SDK client's own `onprogress` option.
 */
import type { CallToolResult, Client } from '@modelcontextprotocol/client';
import type { Answer } from '../../src/core/schemas.js';
import { STAGE_PREFIX } from '../../src/mcp/tools/ask.js';
import { answerOf } from './mcp-answer.js';

// A long script: answers quote code of up to 30 lines (fences included) whole; prose, lists, tables
// and longer code are shortened to their best parts.
const script = Array.from({ length: 28 }, (_, line) => `wibble-dial calibrate --step ${line + 1}`).join('\n');

/** One section about calibrating the wibble dial, with a 28-line script. */
export const WIBBLE_MANUAL = `# Wibble calibration manual

## Calibrating the wibble dial

Calibrate the wibble dial with this script:

\`\`\`sh
${script}
\`\`\`
`;

export const WIBBLE_QUESTION = 'How do I calibrate the wibble dial?';

export interface StreamedAnswer {
  readonly answer: Answer;
  /** The progress messages after the stage lines, joined: the answer text as streamed. */
  readonly streamed: string;
}

/** Asks with `onprogress`, as an MCP host does, and collects what the callback received. */
export async function askStreaming(client: Client, question: string): Promise<StreamedAnswer> {
  const messages: string[] = [];
  const result = (await client.callTool({ name: 'ask', arguments: { question } }, {
    onprogress: (progress) => messages.push(progress.message ?? ''),
  })) as CallToolResult;
  if (result.isError) throw new Error(`ask failed: ${JSON.stringify(result.content)}`);
  const text = messages.filter((message) => !message.startsWith(STAGE_PREFIX));
  return { answer: answerOf(result), streamed: text.join('') };
}
