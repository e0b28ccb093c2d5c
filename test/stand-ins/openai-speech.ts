/**
 * An OpenAI-compatible speech endpoint (`POST /v1/audio/speech` with
 * `{model, voice, input, response_format}`), answering with MP3: silent MPEG-2
 * Layer III frames (22.05 kHz, 64 kbps), about 0.4 s per word of the input.
 * Requests are recorded; `failNext` of its server makes it fail like the real one.
 */
import { bearerToken, json, type LoopbackServer, replying, startLoopbackServer } from '../support/loopback-server.js';

export interface SpeechRequestBody {
  readonly model: string;
  readonly voice: string;
  readonly input: string;
  readonly response_format?: string;
}

export interface SpeechStandIn {
  readonly server: LoopbackServer;
  /** The API root to configure, ending in /v1. */
  readonly baseUrl: string;
  /** The bodies received, in order, with the bearer token each carried. */
  readonly received: { readonly body: SpeechRequestBody; readonly token: string | undefined }[];
  close(): Promise<void>;
}

/** One silent frame: MPEG-2, Layer III, no CRC, 64 kbps, 22.05 kHz, mono; 208 bytes = 576 samples. */
const SILENT_FRAME = Buffer.concat([Buffer.from([0xff, 0xf3, 0x80, 0xc0]), Buffer.alloc(204)]);
const FRAMES_PER_WORD = 15;

export async function startSpeechStandIn(): Promise<SpeechStandIn> {
  const received: SpeechStandIn['received'] = [];
  const server = await startLoopbackServer(
    replying((request) => {
      if (request.method !== 'POST' || request.url.pathname !== '/v1/audio/speech') return json(404, { error: { message: 'not found' } });
      const body = JSON.parse(request.body) as SpeechRequestBody;
      received.push({ body, token: bearerToken(request.headers) });
      if (typeof body.input !== 'string' || body.input.length > 4096) {
        return json(400, { error: { message: 'input must be a string of at most 4096 characters' } });
      }
      const words = body.input.split(/\s+/).filter(Boolean).length;
      const audio = Buffer.concat(Array.from({ length: Math.max(1, words * FRAMES_PER_WORD) }, () => SILENT_FRAME));
      return { status: 200, headers: { 'content-type': 'audio/mpeg' }, body: audio };
    }),
  );
  return { server, baseUrl: server.url('/v1'), received, close: () => server.close() };
}
