/** `guru-mcp reindex [<slug>] ID... [--no-wait] [--json]` */
import { withGuru } from '../backend.js';
import { UsageError } from '../failures.js';
import { writeJson, writeLines } from '../output.js';
import { exitCodeOf, renderSourceRows, rowOf, waitWithProgress, type SourceRow } from '../processing.js';
import type { CommandContext } from '../spec.js';
import { flag } from '../values.js';

function idsOf(args: readonly string[]): number[] {
  return args.map((arg) => {
    if (!/^\d+$/.test(arg) || Number(arg) < 1) throw new UsageError(`source ids are whole numbers from 1 (see guru-mcp sources), not "${arg}"`, 'reindex');
    return Number(arg);
  });
}

export async function run(context: CommandContext): Promise<number> {
  const json = flag(context.values, 'json');
  const noWait = flag(context.values, 'no-wait');

  const { msg, rows } = await withGuru(context, async ({ assistant }, { slug, args }) => {
    const ids = [...new Set(idsOf(args))];
    const { msg } = await assistant.reindexDataSources(slug, { ids });
    if (noWait) return { msg, rows: undefined };
    if (!json) context.terminal.stderr.write(`${msg}\n`);
    const outcomes = await waitWithProgress(context, assistant, slug, ids, 'Reindexing');
    const rows: SourceRow[] = outcomes.map(({ id, source }) => rowOf(id, source?.type ?? '', source?.url ?? '', source, source?.url));
    return { msg, rows };
  }, { processing: !noWait });

  if (rows === undefined) {
    if (json) writeJson(context.terminal.stdout, { msg });
    else writeLines(context.terminal.stdout, msg);
    return 0;
  }
  if (json) writeJson(context.terminal.stdout, { msg, results: rows });
  else writeLines(context.terminal.stdout, ...renderSourceRows(rows, flag(context.values, 'verbose')));
  return exitCodeOf(context, rows);
}
