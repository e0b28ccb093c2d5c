/** `guru-mcp guru create <slug> [--name NAME] [--json]` */
import { CreateGuruRequest } from '../../core/schemas.js';
import { adminOf, withBackend } from '../backend.js';
import { UsageError } from '../failures.js';
import { nextSteps } from '../first-run.js';
import { commandLine } from '../invocation.js';
import { shellQuote, writeJson, writeLines } from '../output.js';
import type { CommandContext } from '../spec.js';
import { flag, stringOption } from '../values.js';

export async function run(context: CommandContext): Promise<number> {
  const [slug] = context.args as [string];
  const name = stringOption(context.values, 'name');
  const request = CreateGuruRequest.safeParse({ slug, ...(name === undefined ? {} : { name }) });
  if (!request.success) {
    const issue = request.error.issues[0]!;
    const [field, value] = issue.path[0] === 'name' ? ['--name', name] : ['slug', slug];
    throw new UsageError(`invalid ${field} "${value}": ${issue.message}`, 'guru create');
  }
  const created = await withBackend(context, (backend) => adminOf(backend).createGuru(request.data));
  const { stdout } = context.terminal;
  if (flag(context.values, 'json')) {
    writeJson(stdout, { slug: created.slug, name: created.name, api_key: created.api_key });
  } else {
    writeLines(
      stdout,
      `Created guru ${created.slug} (${created.name}).`,
      `API key: ${created.api_key}`,
      `Store the key now: it is shown only once. ${commandLine(context.config, `key create ${shellQuote(created.slug)}`)} makes another.`,
      '',
      ...nextSteps(context.config, created.slug),
    );
  }
  return 0;
}
