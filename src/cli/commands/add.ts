/** `guru-mcp add [<slug>] [FILE|FOLDER|URL...] [--kind KIND] [--name NAME] [--label L]... [--no-wait] [--json]` */
import { extname } from 'node:path';
import type { GuruAdmin } from '../../core/assistant.js';
import type { CreateDataSourcesRequest, TextSourceInput, UploadedType } from '../../core/schemas.js';
import { withGuru } from '../backend.js';
import { CommandFailure, UsageError } from '../failures.js';
import { readStdin } from '../input.js';
import { program } from '../program.js';
import { collectFiles, isBlank, skippedSummary, type LocalFile, type Skipped } from '../local-files.js';
import { acceptedRow, type AddedSource, distinctSources, exitCodeOf, followCreated, writeSourceRows } from '../processing.js';
import type { CommandContext } from '../spec.js';
import { flag, stringList, stringOption } from '../values.js';

export const URL_KINDS = ['website', 'youtube', 'jira', 'zendesk', 'confluence'] as const;
type UrlKind = (typeof URL_KINDS)[number];
type UrlField = `${UrlKind}_urls`;

/** Documents, which a backend that takes texts only (the remote service) cannot add. */
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

/** What the files given (folders read through) and stdin add: texts for the create request, and files read by the service. */
interface FileSources {
  readonly texts: TextSourceInput[];
  readonly files: LocalFile[];
  readonly skipped: Skipped[];
}

async function fileSources(context: CommandContext, paths: readonly string[], readsStdin: boolean): Promise<FileSources> {
  const name = stringOption(context.values, 'name');
  if (readsStdin) {
    if (name === undefined) throw new UsageError('reading a source from stdin needs --name NAME', 'add');
    return { texts: [{ name, content: await readStdin(context.terminal, 'Reading the source text from stdin; end it with Ctrl-D.') }], files: [], skipped: [] };
  }
  if (name !== undefined && paths.length !== 1) {
    throw new UsageError('--name names a single text source; give one FILE, or none to read stdin', 'add');
  }
  const { files, skipped } = await collectFiles(paths);
  if (name !== undefined && (files.length !== 1 || files[0]?.inFolder)) throw new UsageError('--name names a single file, not a folder', 'add');
  const blank = files.find((file) => !file.inFolder && isBlank(file.data));
  if (blank) throw new CommandFailure(`${blank.name} is empty; there is nothing to add`);
  return { texts: [], files: name === undefined ? files : files.map((file) => ({ ...file, name })), skipped };
}

/** Types as `add` shows them: texts as the create request spells them, documents as their labels. */
const UPLOADED_TYPES: Record<UploadedType, string> = { TEXT: 'Text', PDF: 'PDF', WORD: 'Word', EXCEL: 'Excel' };

/**
 * Adds the files on a backend that reads files (the local engine): the service tells what each is
 * (see src/engine/ingest/files.ts). Files it refuses that were found in a folder are skipped;
 * named ones are refusals, reported and failing the command.
 */
async function uploadFiles(admin: GuruAdmin, slug: string, files: readonly LocalFile[], labels: readonly string[]): Promise<AddedFiles> {
  if (files.length === 0) return { created: [], skipped: [], refused: [] };
  const uploaded = await admin.uploadDocuments(slug, files.map(({ name, data }) => ({ name, data })), labels.length > 0 ? { labels } : {});
  const added: AddedFiles = { created: [], skipped: [], refused: [] };
  uploaded.forEach((item, index) => {
    const file = files[index];
    if (item.status === 'refused') {
      if (file?.inFolder) added.skipped.push({ name: file.name, reason: 'unsupported file' });
      else added.refused.push(`cannot add ${file?.path ?? item.name}: ${item.error}`);
    } else {
      added.created.push({ type: UPLOADED_TYPES[item.type], status: item.status, id: item.id, title: item.title });
    }
  });
  return added;
}

interface AddedFiles {
  readonly created: AddedSource[];
  readonly skipped: Skipped[];
  /** Why each file named on the command line was not added. */
  readonly refused: string[];
}

/**
 * The files as texts, for a backend that takes texts only (the remote service): what is not
 * UTF-8 text is skipped in a folder and refused when named, documents saying where they go.
 */
function filesAsTexts(files: readonly LocalFile[]): { texts: TextSourceInput[]; skipped: Skipped[] } {
  const texts: TextSourceInput[] = [];
  const skipped: Skipped[] = [];
  for (const file of files) {
    const content = utf8(file.data);
    const isDocument = DOCUMENT_EXTENSIONS.has(extname(file.name).toLowerCase());
    if (content !== undefined && !isDocument) texts.push({ name: file.name, content });
    else if (file.inFolder) skipped.push({ name: file.name, reason: 'unsupported file' });
    else if (isDocument) {
      throw new UsageError(`${file.path} is a document; add PDF, Word and Excel files with '${program()} upload <slug> FILE...' on the server that holds the guru`, 'add');
    } else {
      throw new CommandFailure(`cannot add ${file.path}: it is not text`, 'This backend takes text, Markdown and HTML files; add documents on the server that holds the guru.');
    }
  }
  return { texts, skipped };
}

function utf8(data: Uint8Array): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(data);
  } catch {
    return undefined;
  }
}

export async function run(context: CommandContext): Promise<number> {
  const kind = kindOption(context);
  const noWait = flag(context.values, 'no-wait');
  const refusals: string[] = [];
  const skipped: Skipped[] = [];
  const rows = await withGuru(
    context,
    async ({ assistant, admin }, { slug, args: inputs }) => {
      const urls = inputs.filter(isUrl);
      const paths = inputs.filter((input) => !isUrl(input));
      if (kind !== undefined && urls.length === 0) throw new UsageError('--kind applies to URL arguments, and none was given', 'add');
      if (urls.length > 0 && paths.length === 0 && stringOption(context.values, 'name') !== undefined) {
        throw new UsageError('--name names a text source; URL sources are named after their pages', 'add');
      }
      const given = urls.length > 0 && paths.length === 0 ? { texts: [], files: [], skipped: [] } : await fileSources(context, paths, inputs.length === 0);
      skipped.push(...given.skipped);
      const labels = stringList(context.values, 'label');
      // Texts and URLs first: a request the service refuses adds no file either.
      const asTexts = admin ? { texts: [], skipped: [] } : filesAsTexts(given.files);
      const texts = [...given.texts, ...asTexts.texts];
      const lists = urlSources(urls, kind);
      const request: CreateDataSourcesRequest = {
        ...lists,
        ...(texts.length > 0 ? { text_sources: texts } : {}),
        ...(labels.length > 0 ? { labels } : {}),
      };
      const requested = Object.keys(lists).length > 0 || texts.length > 0 ? await assistant.createDataSources(slug, request) : [];
      const files = admin ? await uploadFiles(admin, slug, given.files, labels) : { created: [], skipped: [], refused: [] };
      skipped.push(...asTexts.skipped, ...files.skipped);
      refusals.push(...files.refused);
      const created = distinctSources([...requested, ...files.created]);
      return noWait ? created.map(acceptedRow) : followCreated(context, assistant, slug, created);
    },
    { processing: !noWait },
  );

  writeSourceRows(context, rows);
  if (skipped.length > 0) context.terminal.stderr.write(`Skipped ${skipped.length}: ${skippedSummary(skipped)}\n`);
  for (const refusal of refusals) context.terminal.stderr.write(`guru-mcp: ${refusal}\n`);
  const code = exitCodeOf(context, rows);
  return refusals.length > 0 ? 1 : code;
}
