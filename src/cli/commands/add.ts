/** `guru-mcp add <slug> [FILE...] [--name NAME] [--label L]... [--no-wait] [--json]` */
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { CreatedDataSource, TextSourceInput } from '../../core/schemas.js';
import { withBackend } from '../backend.js';
import { CommandFailure, UsageError } from '../failures.js';
import { columns, writeJson, writeLines } from '../output.js';
import { createProgress } from '../progress.js';
import type { CommandContext, Terminal } from '../spec.js';
import { flag, stringList, stringOption } from '../values.js';
import { waitForSources, type SourceOutcome } from '../../core/wait-for-sources.js';

async function readStdin(terminal: Terminal): Promise<string> {
  if (terminal.stdin.isTTY) terminal.stderr.write('Reading the source text from stdin; end it with Ctrl-D.\n');
  const chunks: Buffer[] = [];
  for await (const chunk of terminal.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString('utf8');
}

async function readSourceFile(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message;
    throw new CommandFailure(`cannot read ${file}: ${reason}`);
  }
}

async function textSources(context: CommandContext, files: readonly string[]): Promise<TextSourceInput[]> {
  const name = stringOption(context.values, 'name');
  if (files.length === 0) {
    if (name === undefined) throw new UsageError('reading a source from stdin needs --name NAME', 'add');
    return [{ name, content: await readStdin(context.terminal) }];
  }
  if (name !== undefined && files.length > 1) throw new UsageError('--name names a single source; give one FILE, or none to read stdin', 'add');
  return Promise.all(files.map(async (file) => ({ name: name ?? basename(file), content: await readSourceFile(file) })));
}

function checkNotEmpty(sources: readonly TextSourceInput[]): void {
  const empty = sources.find((source) => source.content.trim() === '');
  if (empty) throw new CommandFailure(`${empty.name} is empty; there is nothing to add`);
}

interface SummaryRow {
  readonly id: number;
  readonly name: string;
  readonly status: string;
  readonly error: string;
}

function summaryRows(created: readonly CreatedDataSource[], names: readonly string[], outcomes?: readonly SourceOutcome[]): SummaryRow[] {
  return created.map((item, index) => {
    const name = item.title ?? names[index] ?? '';
    if (!outcomes) return { id: item.id, name, status: item.status === 'exists' ? 'EXISTS' : 'NOT_PROCESSED', error: '' };
    const source = outcomes[index]?.source;
    return { id: item.id, name, status: source?.status ?? 'MISSING', error: source?.error ?? '' };
  });
}

function writeSummary(context: CommandContext, rows: readonly SummaryRow[]): void {
  const { stdout } = context.terminal;
  if (flag(context.values, 'json')) {
    writeJson(stdout, rows);
    return;
  }
  writeLines(stdout, ...columns([['ID', 'STATUS', 'NAME', 'ERROR'], ...rows.map((row) => [String(row.id), row.status, row.name, row.error])]));
}

export async function run(context: CommandContext): Promise<number> {
  const [slug, ...files] = context.args as [string, ...string[]];
  const sources = await textSources(context, files);
  checkNotEmpty(sources);
  const labels = stringList(context.values, 'label');

  const rows = await withBackend(context, async ({ assistant }) => {
    const created = await assistant.createDataSources(slug, {
      text_sources: sources,
      ...(labels.length > 0 ? { labels } : {}),
    });
    const names = sources.map((source) => source.name);
    if (flag(context.values, 'no-wait')) return summaryRows(created, names);

    const progress = createProgress(context.terminal.stderr, 'Processing', created.length);
    try {
      const outcomes = await waitForSources(
        assistant,
        slug,
        created.map((item) => item.id),
        { onProgress: (done) => progress.update(done) },
      );
      return summaryRows(created, names, outcomes);
    } finally {
      progress.finish();
    }
  });

  writeSummary(context, rows);
  const failed = rows.filter((row) => row.status === 'FAIL' || row.status === 'MISSING');
  if (failed.length > 0) {
    context.terminal.stderr.write(`guru-mcp: ${failed.length} of ${rows.length} sources failed to process\n`);
    return 1;
  }
  return 0;
}
