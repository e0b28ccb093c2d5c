/** `guru-mcp speech <slug> on|off`: lets a guru speak through the speech provider (text-to-speech version 2), or stops it. */
import { adminOf, withGuru } from '../backend.js';
import { UsageError } from '../failures.js';
import { writeLines } from '../output.js';
import type { CommandContext } from '../spec.js';

export async function run(context: CommandContext): Promise<number> {
  const { slug, enabled } = await withGuru(context, async (backend, { slug, args: [word = ''] }) => {
    if (word !== 'on' && word !== 'off') throw new UsageError(`say on or off, not "${word}"`, 'speech');
    await adminOf(backend).updateGuruSettings(slug, { speech_provider: word === 'on' });
    return { slug, enabled: word === 'on' };
  });
  writeLines(
    context.terminal.stdout,
    enabled
      ? `${slug} now speaks through the speech provider (text-to-speech v2; GURU_TTS_URL and GURU_TTS_MODEL must be set where it is served).`
      : `${slug} no longer speaks through the speech provider: text-to-speech v2 answers "Text-to-speech is not enabled for this guru type".`,
  );
  return 0;
}
