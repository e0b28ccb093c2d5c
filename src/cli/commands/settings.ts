/** `guru-mcp settings <slug> [--model-instructions TEXT] [--use-model on|off] [--speech-provider on|off] [--attachment-limit KIND=COUNTxBYTES] [--json]` */
import { AttachmentKind, type AttachmentLimit, type GuruSettings, type GuruSettingsPatch } from '../../core/schemas.js';
import { adminOf, withGuru } from '../backend.js';
import { UsageError } from '../failures.js';
import { columns, writeJson, writeLines } from '../output.js';
import type { CommandContext, OptionValues } from '../spec.js';
import { flag, stringList, stringOption } from '../values.js';

const COMMAND = 'settings';

function onOff(values: OptionValues, name: string): boolean | undefined {
  const word = stringOption(values, name);
  if (word === undefined) return undefined;
  if (word !== 'on' && word !== 'off') throw new UsageError(`--${name} takes on or off, not "${word}"`, COMMAND);
  return word === 'on';
}

/** `pdf_files=3x10000000`: the kind, then the count and the largest size in bytes. */
function attachmentLimit(text: string): [AttachmentKind, AttachmentLimit] {
  const match = /^([a-z_]+)=(\d+)x(\d+)$/.exec(text);
  const kind = AttachmentKind.safeParse(match?.[1]);
  if (!match || !kind.success) {
    throw new UsageError(`--attachment-limit takes KIND=COUNTxBYTES with KIND one of ${AttachmentKind.options.join(', ')}, e.g. pdf_files=3x10000000; not "${text}"`, COMMAND);
  }
  return [kind.data, { count: Number(match[2]), max_bytes: Number(match[3]) }];
}

function patchOf(values: OptionValues): GuruSettingsPatch {
  const limits = Object.fromEntries(stringList(values, 'attachment-limit').map(attachmentLimit));
  const patch: GuruSettingsPatch = {
    model_instructions: stringOption(values, 'model-instructions'),
    use_model: onOff(values, 'use-model'),
    speech_provider: onOff(values, 'speech-provider'),
    attachment_limits: Object.keys(limits).length > 0 ? limits : undefined,
  };
  return Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined));
}

const onOffWord = (value: boolean): string => (value ? 'on' : 'off');

function describe(settings: GuruSettings): string[] {
  const limits = settings.attachment_limits;
  return columns([
    ['model instructions', settings.model_instructions === '' ? '(none)' : settings.model_instructions],
    ['use model', onOffWord(settings.use_model)],
    ['speech provider', onOffWord(settings.speech_provider)],
    ...AttachmentKind.options.map((kind) => [`attachments: ${kind}`, `${limits[kind].count} of at most ${limits[kind].max_bytes} bytes`]),
  ]);
}

export async function run(context: CommandContext): Promise<number> {
  const patch = patchOf(context.values);
  const settings = await withGuru(context, async (backend, { slug }) => {
    const admin = adminOf(backend);
    return Object.keys(patch).length === 0 ? admin.guruSettings(slug) : admin.updateGuruSettings(slug, patch);
  });
  if (flag(context.values, 'json')) writeJson(context.terminal.stdout, settings);
  else writeLines(context.terminal.stdout, ...describe(settings));
  return 0;
}
