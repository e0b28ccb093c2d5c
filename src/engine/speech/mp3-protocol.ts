/**
 * The messages between the speech streams and their MP3 encoder threads (mp3-encoders.ts and
 * mp3-worker.ts). A thread encodes one stream at a time: the WAV audio of each piece of text as
 * eSpeak NG wrote it, then the last frames; it answers each request in the order it came.
 */

export type EncoderRequest =
  /** One piece's WAV file; the first of a stream sets its sample rate. */
  | { readonly type: 'encode'; readonly wav: Uint8Array }
  /** The stream's last frames; the thread is then ready for another stream. */
  | { readonly type: 'finish' }
  /** The stream was left before its end: its encoder is dropped, unanswered. */
  | { readonly type: 'reset' };

export type EncoderReply =
  | { readonly type: 'encoded'; readonly bytes: Uint8Array }
  | { readonly type: 'failed'; readonly message: string };
