/**
 * How many texts the offline voice reads at once: each stream runs eSpeak NG
 * processes and an MP3 encoder, seconds of CPU for a long text, so a caller
 * holds at most `perCaller` streams and the server at most `total`. A stream
 * over either cap is refused at once (nothing waits in a queue): the caller's
 * own cap with the spec's 429 "Rate limit exceeded", the server's with a 503
 * that says it is busy; both say when to try again.
 */
import { availableParallelism } from 'node:os';
import { Errors } from '../../core/errors.js';

export interface SpeechStreamLimits {
  /** Streams one caller (a REST key; on MCP and the CLI, a guru) may have open at once. */
  readonly perCaller?: number;
  /** Streams of all callers at once. */
  readonly total?: number;
}

const DEFAULT_STREAMS_PER_CALLER = 2;
/** About one stream per core: each keeps a core busy while it synthesizes (at a lower priority than serving). */
const defaultTotalStreams = (): number => Math.max(2, availableParallelism());

/**
 * Retry-After of a refused stream. A stream ends when its text is read or its client leaves;
 * the server cannot tell when that will be. A 200-word answer takes about half a second, a
 * 20,000-character text about ten at rest.
 */
const SPEECH_RETRY_SECONDS = 5;

/** A stream's place; giving it back more than once is harmless. */
export type SpeechSlot = () => void;

export class SpeechSlots {
  readonly #perCaller: number;
  readonly #total: number;
  readonly #open = new Map<string, number>();
  #all = 0;

  constructor(limits: SpeechStreamLimits = {}) {
    this.#perCaller = limits.perCaller ?? DEFAULT_STREAMS_PER_CALLER;
    this.#total = limits.total ?? defaultTotalStreams();
    for (const [name, value] of [['perCaller', this.#perCaller], ['total', this.#total]] as const) {
      if (!Number.isInteger(value) || value < 1) throw new RangeError(`speech streams ${name} must be a positive integer, got ${value}`);
    }
  }

  /** A place for one more stream of `caller`, or the GuruError that refuses it. */
  take(caller: string): SpeechSlot {
    const mine = this.#open.get(caller) ?? 0;
    if (mine >= this.#perCaller) throw Errors.speechStreamsOfKey(SPEECH_RETRY_SECONDS, this.#perCaller);
    if (this.#all >= this.#total) throw Errors.speechBusy(SPEECH_RETRY_SECONDS, this.#total);
    this.#open.set(caller, mine + 1);
    this.#all += 1;
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.#all -= 1;
      const left = (this.#open.get(caller) ?? 1) - 1;
      if (left === 0) this.#open.delete(caller);
      else this.#open.set(caller, left);
    };
  }
}
