/** `guru-mcp add [<slug>] [FILE|URL...] [--kind KIND] [--name NAME] [--label L]... [--no-wait] [--json]` */
import { readFile } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import type { CreateDataSourcesRequest, TextSourceInput } from '../../core/schemas.js';
import { withGuru } from '../backend.js';
import { CommandFailure, UsageError } from '../failures.js';
import { acceptedRow, distinctSources, exitCodeOf, followCreated, writeSourceRows } from '../processing.js';
import type { CommandContext, Terminal } from '../spec.js';
import { flag, stringList, stringOption } from '../values.js';

export const URL_KINDS = ['website', 'youtube', 'jira', 'zendesk', 'confluence'] as const;
type UrlKind = (typeof URL_KINDS)[number];
type UrlField = `${UrlKind}_urls`;

/** Files `upload` reads; as text they would be bytes, not words. */
const DOCUMENT_EXTENSIONS = new Set(['.pdf', '.docx', '.xlsx']);

const isUrl = (argument: string): boolean => /^https?:\/\//i.test(argument);

function isYouTube(url: string): boolean {
  try {
    const host = new URL(url).hostname.toLowerCase();
    return host === 'youtu.be' || host === 'youtube.com' || host.endsWith('.youtube.com');
  } catch {
    return false; // the service says what is wrong with it
  }
}

function kindOption(context: CommandContext): UrlKind | undefined {
  const kind = stringOption(context.values, 'kind');
  if (kind === undefined) return undefined;
  if (!(URL_KINDS as readonly string[]).includes(kind)) {
    throw new UsageError(`--kind must be one of ${URL_KINDS.join(', ')}, not "${kind}"`, 'add');
  }
  return kind as UrlKind;
}

/** URL arguments by request field: all of `--kind`'s, else YouTube's or websites by host. */
function urlSources(urls: readonly string[], kind: UrlKind | undefined): Partial<Record<UrlField, string[]>> {
  const lists: Partial<Record<UrlField, string[]>> = {};
  for (const url of urls) {
    const field: UrlField = `${kind ?? (isYouTube(url) ? 'youtube' : 'website')}_urls`;
    (lists[field] ??= []).push(url);
  }
  return lists;
}

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
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : (error as Error).message;
    throw new CommandFailure(`cannot read ${file}: ${reason}`);
  }
}

async function textSources(context: CommandContext, files: readonly string[], readsStdin: boolean): Promise<TextSourceInput[]> {
  const name = stringOption(context.values, 'name');
  if (readsStdin) {
    if (name === undefined) throw new UsageError('reading a source from stdin needs --name NAME', 'add');
    return [{ name, content: await readStdin(context.terminal) }];
  }
  if (name !== undefined && files.length !== 1) {
    throw new UsageError('--name names a single text source; give one FILE, or none to read stdin', 'add');
  }
  const document = files.find((file) => DOCUMENT_EXTENSIONS.has(extname(file).toLowerCase()));
  if (document !== undefined) {
    throw new UsageError(`${document} is a document; add PDF, Word and Excel files with 'guru-mcp upload <slug> FILE...'`, 'add');
  }
  return Promise.all(files.map(async (file) => ({ name: name ?? basename(file), content: await readSourceFile(file) })));
}

function checkNotEmpty(sources: readonly TextSourceInput[]): void {
  const empty = sources.find((source) => source.content.trim() === '');
  if (empty) throw new CommandFailure(`${empty.name} is empty; there is nothing to add`);
}

export async function run(context: CommandContext): Promise<number> {
  const kind = kindOption(context);
  const noWait = flag(context.values, 'no-wait');
  const rows = await withGuru(
    context,
    async ({ assistant }, { slug, args: inputs }) => {
      const urls = inputs.filter(isUrl);
      const files = inputs.filter((input) => !isUrl(input));
      if (kind !== undefined && urls.length === 0) throw new UsageError('--kind applies to URL arguments, and none was given', 'add');
      const texts = urls.length > 0 && files.length === 0 ? [] : await textSources(context, files, inputs.length === 0);
      if (urls.length > 0 && files.length === 0 && stringOption(context.values, 'name') !== undefined) {
        throw new UsageError('--name names a text source; URL sources are named after their pages', 'add');
      }
      checkNotEmpty(texts);
      const labels = stringList(context.values, 'label');
      const request: CreateDataSourcesRequest = {
        ...urlSources(urls, kind),
        ...(texts.length > 0 ? { text_sources: texts } : {}),
        ...(labels.length > 0 ? { labels } : {}),
      };
      const created = distinctSources(await assistant.createDataSources(slug, request));
      return noWait ? created.map(acceptedRow) : followCreated(context, assistant, slug, created);
    },
    { processing: !noWait },
  );

  writeSourceRows(context, rows);
  return exitCodeOf(context, rows);
}
