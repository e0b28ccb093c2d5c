/** `guru-mcp upload [<slug>] FILE... [--private] [--label L]... [--no-wait] [--json]` */
import type { UploadedDocument } from '../../core/schemas.js';
import { adminOf, withGuru } from '../backend.js';
import { readFiles } from '../input.js';
import { columns, writeJson, writeLines } from '../output.js';
import { exitCodeOf, waitWithProgress } from '../processing.js';
import type { CommandContext } from '../spec.js';
import { flag, stringList } from '../values.js';

/** What became of one file. */
interface UploadRow {
  readonly file: string;
  /** NOT_PROCESSED, SUCCESS or FAIL once accepted (EXISTS with --no-wait for a file already added unchanged); REFUSED when the service would not take it. */
  readonly status: string;
  readonly id?: number;
  readonly type?: string;
  readonly title?: string;
  readonly private?: boolean;
  readonly error: string;
}

function acceptedRow(path: string, uploaded: UploadedDocument): UploadRow {
  if (uploaded.status === 'refused') return { file: path, status: 'REFUSED', error: uploaded.error };
  return { file: path, status: uploaded.status === 'exists' ? 'EXISTS' : 'NOT_PROCESSED', id: uploaded.id, type: uploaded.type, title: uploaded.title, private: uploaded.private, error: '' };
}

function writeRows(context: CommandContext, rows: readonly UploadRow[]): void {
  const { stdout } = context.terminal;
  if (flag(context.values, 'json')) {
    writeJson(stdout, rows);
    return;
  }
  writeLines(
    stdout,
    ...columns([
      ['ID', 'TYPE', 'STATUS', 'FILE', 'TITLE', 'ERROR'],
      ...rows.map((row) => [row.id === undefined ? '-' : String(row.id), row.type ?? '-', row.status, row.file, row.title ?? '', row.error]),
    ]),
  );
}

export async function run(context: CommandContext): Promise<number> {
  const labels = stringList(context.values, 'label');
  const options = { private: flag(context.values, 'private'), ...(labels.length > 0 ? { labels } : {}) };
  const noWait = flag(context.values, 'no-wait');

  const rows = await withGuru(context, async (backend, { slug, args: paths }) => {
    const files = await readFiles(paths, 'upload');
    const uploaded = await adminOf(backend).uploadDocuments(slug, files, options);
    const accepted = uploaded.map((item, index) => acceptedRow(paths[index] ?? item.name, item));
    const ids = accepted.flatMap((row) => (row.id === undefined ? [] : [row.id]));
    if (noWait || ids.length === 0) return accepted;
    const outcomes = new Map((await waitWithProgress(context, backend.assistant, slug, ids)).map((outcome) => [outcome.id, outcome.source]));
    return accepted.map((row): UploadRow => {
      if (row.id === undefined) return row;
      const source = outcomes.get(row.id);
      return { ...row, status: source?.status ?? 'MISSING', title: source?.title ?? row.title, error: source?.error ?? '' };
    });
  }, { processing: !noWait });

  writeRows(context, rows);
  const refused = rows.filter((row) => row.status === 'REFUSED').length;
  const failed = exitCodeOf(context, rows.filter((row) => row.status !== 'REFUSED'));
  if (refused > 0) context.terminal.stderr.write(`guru-mcp: ${refused} of ${rows.length} files refused\n`);
  return refused > 0 ? 1 : failed;
}
