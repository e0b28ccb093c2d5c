/**
 * `text_to_speech`: text read aloud by the guru's voice, returned as MCP audio
 * content (base64 MP3). The audio is cut at AUDIO_BYTE_CAP, after its last
 * whole MP3 frame, and the result says so.
 */
import type { McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { lazySchema } from '../../core/lazy-schema.js';
import { readMp3 } from '../../core/mp3-frames.js';
import { TextToSpeechRequest } from '../../core/schemas.js';
import { toolResult } from '../results.js';
import { guarded, guruSlugParameter } from './context.js';
import type { ToolContext } from './context.js';

/** 1 MiB of MP3: about two minutes of speech at 64 kbps, 1.4 MB of base64 in the result. */
export const AUDIO_BYTE_CAP = 1024 * 1024;

const SpeechParameters = lazySchema(() => z.object({
  text: TextToSpeechRequest.shape.text.describe(
    'Text or Markdown to read',
  ),
  version: z
    .union([z.literal(1), z.literal(2)])
    .optional()
    .describe('1: offline voice; 2: speech provider, if enabled'),
  guru_slug: guruSlugParameter,
}));
type SpeechParameters = z.infer<typeof SpeechParameters>;

const SpeechOutput = lazySchema(() => z.object({
  mime_type: z.literal('audio/mpeg'),
  bytes: z.number().int().describe('Size of the MP3 audio in the result'),
  duration_seconds: z.number().describe('How long the audio plays'),
  truncated: z.boolean().describe(`True when the audio was cut at ${AUDIO_BYTE_CAP} bytes: the rest of the text was not spoken`),
}));

export function registerSpeechTool(server: McpServer, context: ToolContext): void {
  server.registerTool(
    'text_to_speech',
    {
      title: 'Read text aloud',
      description:
        `Read a text aloud as MP3 audio, up to ${AUDIO_BYTE_CAP / 1024 / 1024} MiB (about 2 minutes).`,
      inputSchema: SpeechParameters,
      outputSchema: SpeechOutput,
      // Version 2 calls the speech provider, a service outside this server.
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    },
    guarded(context, 'text_to_speech', 'text_to_speech', async (args: SpeechParameters, extra) => {
      const guru = await context.gurus.select('text_to_speech', args.guru_slug);
      const stream = await context.assistant.textToSpeech(guru, { text: args.text }, { signal: extra.mcpReq.signal, version: args.version ?? 1 });
      const chunks: Uint8Array[] = [];
      let bytes = 0;
      let truncated = false;
      for await (const chunk of stream) {
        chunks.push(chunk);
        bytes += chunk.length;
        if (bytes > AUDIO_BYTE_CAP) {
          truncated = true;
          break; // leaving the stream stops the synthesis
        }
      }
      const received = Buffer.concat(chunks);
      const mp3 = readMp3(truncated ? received.subarray(0, AUDIO_BYTE_CAP) : received, { cutEnd: truncated });
      const audio = received.subarray(0, mp3.wholeFramesBytes);
      const seconds = Math.round(mp3.durationSeconds * 10) / 10;
      const text = truncated
        ? `${seconds} s of MP3 audio: cut at ${AUDIO_BYTE_CAP} bytes, so the end of the text is not spoken; send the rest as another call.`
        : `${seconds} s of MP3 audio (${audio.length} bytes).`;
      return toolResult({ mime_type: 'audio/mpeg', bytes: audio.length, duration_seconds: seconds, truncated }, text, [
        { type: 'audio', data: audio.toString('base64'), mimeType: 'audio/mpeg' },
      ]);
    }),
  );
}
