/**
 * The files a command is given, folders read recursively: one entry per file, named by its path
 * from the folder given (`manual/guide/intro.html`), so that adding the folder again finds the
 * same names. Hidden files and folders and `node_modules` are skipped, as are empty files, files
 * over the size cap, and links that lead outside the folder or back into a folder already read;
 * so are a site's stylesheets and scripts, and the copies of its pages' sources that Sphinx keeps
 * beside them (`_sources/intro.rst.txt` for `intro.html`), which would only repeat the pages.
 * Every skip is kept with its reason for the command to report. A folder over the caps (files,
 * bytes, depth) is refused as a whole before anything is sent. What each file is stays for the
 * service to decide.
 */
import type { Dirent } from 'node:fs';
import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import { basename, extname, join, resolve, sep } from 'node:path';
import { CommandFailure } from './failures.js';

export interface FolderLimits {
  /** Files read from the folders of one command. */
  readonly files: number;
  /** Their bytes together. */
  readonly bytes: number;
  /** Folders inside folders below the one given. */
  readonly depth: number;
  /** A file bigger than this is skipped (the service refuses files over 50 MB). */
  readonly fileBytes: number;
}

const MiB = 1024 * 1024;

export const FOLDER_LIMITS: FolderLimits = { files: 1000, bytes: 200 * MiB, depth: 16, fileBytes: 50 * MiB };

export interface LocalFile {
  /** The path as given, or below a folder given. */
  readonly path: string;
  /** The name it is added under: the file name, or its path from the folder given (with `/`). */
  readonly name: string;
  readonly data: Uint8Array;
  /** Found in a folder rather than named on the command line. */
  readonly inFolder: boolean;
}

/** Why a file or folder was skipped, as one and as several. */
const SKIP_REASONS = {
  'hidden folder': 'hidden folders',
  'hidden file': 'hidden files',
  'node_modules folder': 'node_modules folders',
  'empty file': 'empty files',
  'file over 50 MB': 'files over 50 MB',
  'link leading outside the folder': 'links leading outside the folder',
  'folder already read': 'folders already read',
  'broken link': 'broken links',
  'special file': 'special files',
  'unsupported file': 'unsupported files',
  'stylesheet or script': 'stylesheets and scripts',
  "copy of a page's source": "copies of pages' sources",
} as const;

/** A site's assets: in a folder they are the pages' styling and code, not their knowledge (named alone, they are added). */
const ASSET_EXTENSIONS = new Set(['.css', '.scss', '.sass', '.less', '.js', '.mjs', '.cjs', '.map']);

/** `manual/_sources/guide/intro.rst.txt` → `manual/guide/intro.html`: the page Sphinx built from that source. */
function pageOfSourceCopy(name: string): string | undefined {
  const match = /^(.*\/)?_sources\/(.+?)(?:\.[A-Za-z0-9]+)?\.txt$/.exec(name);
  return match ? `${match[1] ?? ''}${match[2]}.html` : undefined;
}

export type SkipReason = keyof typeof SKIP_REASONS;

export interface Skipped {
  /** As files are named: its path from the folder given. */
  readonly name: string;
  readonly reason: SkipReason;
}

export interface CollectedFiles {
  readonly files: LocalFile[];
  readonly skipped: Skipped[];
}

/** Whether the bytes are only white space (or nothing): a file with nothing to add. */
export const isBlank = (data: Uint8Array): boolean => data.every((byte) => byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09);

/** Reads the files and folders named, refusing the whole lot when one cannot be read or a folder is over a cap. */
export async function collectFiles(paths: readonly string[], limits: FolderLimits = FOLDER_LIMITS): Promise<CollectedFiles> {
  const walk = new Walk(limits);
  for (const path of paths) {
    const stats = await stat(path).catch((error: unknown) => {
      throw readFailure(path, error);
    });
    if (stats.isDirectory()) await walk.folder(path);
    else walk.files.push({ path, name: basename(path), data: await readWhole(path), inFolder: false });
  }
  const pages = new Set(walk.files.map((file) => file.name));
  const files: LocalFile[] = [];
  for (const file of walk.files) {
    const page = file.inFolder ? pageOfSourceCopy(file.name) : undefined;
    if (page !== undefined && pages.has(page)) walk.skipped.push({ name: file.name, reason: "copy of a page's source" });
    else files.push(file);
  }
  return { files, skipped: walk.skipped };
}

class Walk {
  readonly files: LocalFile[] = [];
  readonly skipped: Skipped[] = [];
  readonly #limits: FolderLimits;
  #bytes = 0;
  #inFolders = 0;

  constructor(limits: FolderLimits) {
    this.#limits = limits;
  }

  async folder(path: string): Promise<void> {
    const root = await realpath(path);
    const name = basename(resolve(path)) || 'folder';
    await this.#read(path, name, root, new Set([root]), 0);
  }

  /** `root` is the real path of the folder given; `seen` the real folders read so far. */
  async #read(path: string, name: string, root: string, seen: Set<string>, depth: number): Promise<void> {
    if (depth > this.#limits.depth) {
      throw new CommandFailure(`cannot add ${path}: it is nested more than ${this.#limits.depth} folders deep`, 'Add its subfolders one by one.');
    }
    const listed = await readdir(path, { withFileTypes: true }).catch((error: unknown) => {
      throw readFailure(path, error);
    });
    const entries = listed.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const entryPath = join(path, entry.name);
      const entryName = `${name}/${entry.name}`;
      const target = await this.#target(entry, entryPath, root);
      if (typeof target === 'string') {
        this.skipped.push({ name: entryName, reason: target });
        continue;
      }
      if (target.isDirectory) {
        const reason: SkipReason | undefined = entry.name.startsWith('.') ? 'hidden folder' : entry.name === 'node_modules' ? 'node_modules folder' : seen.has(target.real) ? 'folder already read' : undefined;
        if (reason !== undefined) {
          this.skipped.push({ name: entryName, reason });
          continue;
        }
        seen.add(target.real);
        await this.#read(entryPath, entryName, root, seen, depth + 1);
      } else {
        await this.#file(entryPath, entryName, entry.name, target.size);
      }
    }
  }

  /** What an entry is once its links are followed, or why it is skipped. */
  async #target(entry: Dirent, path: string, root: string): Promise<{ isDirectory: boolean; real: string; size: number } | SkipReason> {
    if (!entry.isSymbolicLink()) {
      if (entry.isDirectory()) return { isDirectory: true, real: await realpath(path), size: 0 };
      if (!entry.isFile()) return 'special file';
      return { isDirectory: false, real: path, size: (await stat(path)).size };
    }
    let real: string;
    try {
      real = await realpath(path);
    } catch {
      return 'broken link';
    }
    if (real !== root && !real.startsWith(root + sep)) return 'link leading outside the folder';
    const stats = await stat(real);
    if (stats.isDirectory()) return { isDirectory: true, real, size: 0 };
    return stats.isFile() ? { isDirectory: false, real, size: stats.size } : 'special file';
  }

  async #file(path: string, name: string, fileName: string, size: number): Promise<void> {
    if (fileName.startsWith('.')) return void this.skipped.push({ name, reason: 'hidden file' });
    if (ASSET_EXTENSIONS.has(extname(fileName).toLowerCase())) return void this.skipped.push({ name, reason: 'stylesheet or script' });
    if (size > this.#limits.fileBytes) return void this.skipped.push({ name, reason: 'file over 50 MB' });
    if (++this.#inFolders > this.#limits.files) {
      throw new CommandFailure(
        `cannot add ${path}: the folders hold more than ${this.#limits.files} files`,
        'Add fewer at a time: name subfolders one by one.',
      );
    }
    this.#bytes += size;
    if (this.#bytes > this.#limits.bytes) {
      throw new CommandFailure(
        `cannot add ${path}: the folders' files come to more than ${this.#limits.bytes / MiB} MB`,
        'Add fewer at a time: name subfolders one by one.',
      );
    }
    const data = await readWhole(path);
    if (isBlank(data)) return void this.skipped.push({ name, reason: 'empty file' });
    this.files.push({ path, name, data, inFolder: true });
  }
}

async function readWhole(path: string): Promise<Uint8Array> {
  try {
    return await readFile(path);
  } catch (error) {
    throw readFailure(path, error);
  }
}

function readFailure(path: string, error: unknown): CommandFailure {
  const code = (error as NodeJS.ErrnoException).code;
  const reason = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (error as Error).message;
  return new CommandFailure(`cannot read ${path}: ${reason}`);
}

/** "1 hidden folder (manual/.git), 2 unsupported files (manual/logo.png, manual/movie.mp4)": counts per reason, naming the first few. */
export function skippedSummary(skipped: readonly Skipped[]): string {
  const byReason = new Map<SkipReason, string[]>();
  for (const { name, reason } of skipped) byReason.set(reason, [...(byReason.get(reason) ?? []), name]);
  return [...byReason]
    .map(([reason, names]) => {
      const named = names.slice(0, 3).join(', ') + (names.length > 3 ? ', …' : '');
      return `${names.length} ${names.length === 1 ? reason : SKIP_REASONS[reason]} (${named})`;
    })
    .join(', ');
}
