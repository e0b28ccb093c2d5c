/** `guru-mcp profiles upsert [<slug>] FILE|- [--json]` */
import { isGuruError } from '../../core/errors.js';
import { UserResult, type UpsertProfilesRequest } from '../../core/schemas.js';
import { withGuru } from '../backend.js';
import { CommandFailure } from '../failures.js';
import { readStdin, readTextFile } from '../input.js';
import { columns, writeJson, writeLines } from '../output.js';
import type { CommandContext, Terminal } from '../spec.js';
import { flag } from '../values.js';

function readInput(file: string, terminal: Terminal): Promise<string> {
  return file === '-' ? readStdin(terminal, 'Reading the profiles (JSON) from stdin; end with Ctrl-D.') : readTextFile(file);
}

/** `{"users": [...]}`, or the bare array of users. */
function requestOf(text: string, file: string): UpsertProfilesRequest {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new CommandFailure(`${file === '-' ? 'stdin' : file} is not JSON`, 'Write {"users": [{"external_user_id": "...", "memory": {...}}]}.');
  }
  return (Array.isArray(value) ? { users: value } : value) as UpsertProfilesRequest;
}

function renderResults(results: readonly UserResult[]): string[] {
  return columns([
    ['#', 'EXTERNAL_USER_ID', 'RESULT'],
    ...results.map((result) => [String(result.user_index), result.external_user_id || '-', result.success ? 'saved' : `failed: ${result.errors.join('; ')}`]),
  ]);
}

export async function run(context: CommandContext): Promise<number> {
  const { stdout } = context.terminal;
  const json = flag(context.values, 'json');
  try {
    const saved = await withGuru(context, async ({ assistant }, { slug, args: [file] }) =>
      assistant.upsertProfiles(slug, requestOf(await readInput(file!, context.terminal), file!)),
    );
    if (json) writeJson(stdout, saved);
    else writeLines(stdout, ...renderResults(saved.users_results), `Saved ${saved.processed_users} of ${saved.total_users} profile(s).`);
    return 0;
  } catch (error) {
    if (!isGuruError(error)) throw error;
    const results = UserResult.array().safeParse(error.body?.users_results);
    if (!results.success) throw error;
    if (json) writeJson(stdout, error.toBody());
    else writeLines(stdout, ...renderResults(results.data), `${error.message}: the others were saved.`);
    return 1;
  }
}
