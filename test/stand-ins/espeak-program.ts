/**
 * A stand-in for the `espeak-ng` program: a shell script that passes each
 * sentence to the real program, except that a sentence holding `holdWord` waits
 * until `release()` is called, and one holding `failWord` fails as a broken
 * synthesizer would. It lets tests order events without timing anything.
 */
import { chmodSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface EspeakStandIn {
  readonly program: string;
  /** Lets held sentences go on. */
  release(): void;
}

export function espeakStandIn(dir: string, words: { holdWord?: string; failWord?: string }): EspeakStandIn {
  const program = join(dir, 'espeak-ng-stand-in');
  const gate = join(dir, 'released');
  const lines = ['#!/bin/sh', 'text=$(cat)'];
  if (words.holdWord !== undefined) {
    lines.push(`case "$text" in *${words.holdWord}*) while [ ! -e '${gate}' ]; do sleep 0.02; done;; esac`);
  }
  if (words.failWord !== undefined) {
    lines.push(`case "$text" in *${words.failWord}*) echo 'stand-in: synthesis broke' >&2; exit 3;; esac`);
  }
  lines.push('printf "%s" "$text" | exec espeak-ng "$@"');
  writeFileSync(program, `${lines.join('\n')}\n`);
  chmodSync(program, 0o755);
  return {
    program,
    release: () => {
      if (!existsSync(gate)) writeFileSync(gate, '');
    },
  };
}
