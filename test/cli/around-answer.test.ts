/**
 * The commands around an answer: vote (and the vote line after an answer),
 * in-process over a real engine, plus their usage errors through the built bin.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findCommand } from '../../src/cli/registry.js';
import type { CommandContext } from '../../src/cli/spec.js';
import { openBackend } from '../../src/compose.js';
import { loadConfig, type Config } from '../../src/config.js';
import type { Answer } from '../../src/core/schemas.js';
import { silentLogger } from '../../src/log.js';
import { CONFIG_GUIDE, INSTALL_GUIDE } from '../contract/fixtures.js';
import { runCli } from './run-cli.js';

interface Output {
  readonly code: number;
  readonly stdout: string;
}

describe('CLI commands around an answer', () => {
  let dataDir: string;
  let config: Config;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'guru-cli-around-'));
    config = loadConfig({ env: {}, flags: { dataDir } });
    const backend = await openBackend(config, silentLogger);
    try {
      await backend.admin!.createGuru({ slug: 'frob' });
      await backend.assistant.createDataSources('frob', {
        text_sources: [
          { name: 'Install guide', content: INSTALL_GUIDE },
          { name: 'Configuration', content: CONFIG_GUIDE },
        ],
      });
      await (backend.assistant as unknown as { whenIdle(): Promise<void> }).whenIdle();
    } finally {
      await backend.close();
    }
  });

  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  /** Runs a command in-process with stdout captured (stderr is no terminal, stdout no terminal either). */
  async function run(name: string, args: string[], values: CommandContext['values'] = {}): Promise<Output> {
    let stdout = '';
    const sink = (onText: (text: string) => void) =>
      new Writable({
        write(chunk: Buffer | string, _encoding, done) {
          onText(String(chunk));
          done();
        },
      });
    const command = findCommand(name)!;
    const code = await (await command.load()).run({
      command,
      args,
      values,
      config,
      logger: silentLogger,
      terminal: { stdin: Readable.from([]), stdout: sink((text) => (stdout += text)), stderr: sink(() => {}) },
      openBackend: () => openBackend(config, silentLogger),
    });
    return { code, stdout };
  }

  const ask = async (question: string): Promise<Answer> =>
    JSON.parse((await run('ask', ['frob', question], { json: true })).stdout) as Answer;

  describe('follow-ups', () => {
    it('ask --follow-ups shows the questions to ask next after the answer; follow-ups shows them again', async () => {
      const shown = await run('ask', ['frob', 'How do I install Frobnicator?'], { 'follow-ups': true });
      const [, after] = shown.stdout.split(/^You could ask next:$/m);
      const suggested = [...(after ?? '').matchAll(/^ {2}\d\. (.+)$/gm)].map((match) => match[1]);
      expect(suggested.length).toBeGreaterThan(0);
      const slug = /^Vote: .+ vote frob (\S+) up\|down --data-dir /m.exec(shown.stdout)?.[1];

      const again = await run('follow-ups', ['frob', slug!], { json: true });
      expect(JSON.parse(again.stdout)).toEqual({ follow_up_examples: suggested, question_slug: slug, cached: true });

      const json = JSON.parse((await run('ask', ['frob', 'Where does Frobnicator read its settings?'], { 'follow-ups': true, json: true })).stdout) as Answer & {
        follow_up_examples: string[];
      };
      expect(json.follow_up_examples).toEqual(expect.any(Array));
      expect(json.slug).toEqual(expect.any(String));
    });

    it('says when there is nothing to suggest, and names an unknown answer', async () => {
      const nothing = await ask('What is the capital of Mongolia?');
      expect(await run('follow-ups', ['frob', nothing.slug])).toEqual({
        code: 0,
        stdout: 'No follow-up questions: the knowledge base has nothing more around this answer.\n',
      });
      const unknown = await runCli(['follow-ups', 'frob', 'no-such-answer', '--data-dir', dataDir]);
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toContain('Question does not exist');
    });
  });

  describe('answer-progress', () => {
    it("shows the end user's line, or that nothing is in progress", async () => {
      const backend = await openBackend(config, silentLogger);
      try {
        await backend.assistant.ask('frob', { question: 'How do I install Frobnicator?', external_user_id: 'cli-user', fetch_existing: false });
      } finally {
        await backend.close();
      }
      const shown = await run('answer-progress', ['frob', 'cli-user']);
      expect(shown.stdout).toMatch(/^Writing the answer… {2}\(\d{4}-\d\d-\d\dT[\d:.]+Z\)\n$/);
      const json = JSON.parse((await run('answer-progress', ['frob', 'cli-user'], { json: true })).stdout) as { updated_at: number };
      expect(json).toEqual({ status_text: 'Writing the answer…', updated_at: expect.any(Number) });
      expect(await run('answer-progress', ['frob', 'nobody'])).toEqual({ code: 0, stdout: 'Nothing in progress (no line in the last 2 minutes).\n' });
    });
  });

  describe('vote', () => {
    it('ask shows the vote command after an answer that takes votes', async () => {
      const shown = await run('ask', ['frob', 'How do I install Frobnicator?']);
      // In-process, the program is the test runner's: the words and data directory are the command's.
      expect(shown.stdout).toMatch(new RegExp(`^Vote: .+ vote frob how-do-i-install-frobnicator-[0-9a-f]{12} up\\|down --data-dir ${dataDir}$`, 'm'));
      const nothing = await run('ask', ['frob', 'What is the capital of Mongolia?']);
      expect(nothing.stdout).not.toContain('Vote:');
    });

    it('records a vote with feedback, then says the answer already has one', async () => {
      const answer = await ask('Where does Frobnicator read its settings?');
      const first = await run('vote', ['frob', answer.slug, 'down'], { feedback: 'Too short', session: answer.session_id });
      expect(first).toEqual({ code: 0, stdout: `Recorded: downvote on ${answer.slug}, with feedback "Too short".\n` });
      const again = await run('vote', ['frob', answer.slug, 'UP'], { json: true });
      expect(JSON.parse(again.stdout)).toEqual({ msg: 'Already voted', vote: 'downvote' });
    });

    it('refuses a vote that is neither up nor down as a usage error, and the service\'s refusals with exit 1', async () => {
      const sideways = await runCli(['vote', 'frob', 'some-answer', 'sideways', '--data-dir', dataDir]);
      expect(sideways.code).toBe(2);
      expect(sideways.stderr).toContain('guru-mcp: the vote must be up or down, not "sideways"');
      expect(sideways.stderr).toContain("Run 'guru-mcp vote --help' for usage.");

      const unknown = await runCli(['vote', 'frob', 'no-such-answer', 'up', '--data-dir', dataDir]);
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toContain('Question not found');
      expect(unknown.stderr).not.toMatch(/\n\s+at /);
    });
  });
});
