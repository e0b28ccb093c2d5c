/** `guru-mcp migrate [--json]`: the data directory's embedded store copied into PostgreSQL. */
import { migrateToPostgres } from '../../compose.js';
import { CommandFailure } from '../failures.js';
import { columns, writeJson, writeLines } from '../output.js';
import { createProgress, type Progress } from '../progress.js';
import type { CommandContext } from '../spec.js';
import { flag } from '../values.js';

/** The tables a person recognises, in the words of the service. */
const SHOWN: Readonly<Record<string, string>> = {
  gurus: 'gurus',
  api_keys: 'API keys',
  data_sources: 'sources',
  chunks: 'passages',
  binges: 'sessions',
  questions: 'answers',
  crawls: 'crawls',
  integrations: 'integrations',
  end_user_records: "end users' profiles and memory lists",
};

export async function run(context: CommandContext): Promise<number> {
  const { config, terminal } = context;
  let progress: Progress | undefined;
  const started = Date.now();
  let migrated;
  try {
    migrated = await migrateToPostgres(config, context.logger, {
      onProgress: (copied, total) => {
        progress ??= createProgress(terminal.stderr, 'Copying rows', total);
        progress.update(copied);
      },
    });
  } catch (error) {
    throw new CommandFailure(
      error instanceof Error ? error.message : String(error),
      'Nothing was copied; fix the cause and run guru-mcp migrate again.',
    );
  } finally {
    progress?.finish();
  }
  if (flag(context.values, 'json')) {
    writeJson(terminal.stdout, migrated);
    return 0;
  }
  const rows = new Map(migrated.tables.map(({ table, rows }) => [table, rows]));
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  writeLines(
    terminal.stdout,
    `Copied ${config.dataDir} into PostgreSQL in ${seconds} s:`,
    ...columns(Object.entries(SHOWN).map(([table, noun]) => [`  ${noun}`, String(rows.get(table) ?? 0)])),
    'From now on, start guru-mcp with GURU_DATABASE_URL set. The data directory stays as it was; keep its secret.key beside every process.',
  );
  return 0;
}
