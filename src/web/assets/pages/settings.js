// Settings: the guru's model instructions, use of the language model, speech v2 and attachment limits.
import { getJson } from '../api.js';
import { busy, field, h, notice } from '../dom.js';

const LIMITS = [['images', 'Images'], ['log_files', 'Log files'], ['pdf_files', 'PDF files']];
const MB = 1000000;

export async function render(main) {
  const status = notice();
  main.append(h('h1', {}, 'Settings'), status.element);
  let settings;
  try {
    settings = await getJson('/web/api/settings');
  } catch (error) {
    status.error(error);
    return;
  }

  const instructions = h('textarea', { name: 'model_instructions', rows: 5, maxlength: 4000, value: settings.model_instructions });
  const useModel = h('input', { type: 'checkbox', name: 'use_model', id: 'use-model', checked: settings.use_model });
  const speech = h('input', { type: 'checkbox', name: 'speech_provider', id: 'speech-provider', checked: settings.speech_provider });
  const limits = Object.fromEntries(LIMITS.map(([kind]) => [kind, {
    count: h('input', { type: 'number', name: `${kind}-count`, min: 0, max: 20, step: 1, required: true, value: String(settings.attachment_limits[kind].count) }),
    megabytes: h('input', { type: 'number', name: `${kind}-mb`, min: 0.001, max: 50, step: 'any', required: true, value: String(settings.attachment_limits[kind].max_bytes / MB) }),
  }]));
  const save = h('button', { type: 'submit' }, 'Save settings');
  const form = h('form', { class: 'card' },
    h('h2', {}, 'Answers'),
    field('Model instructions', instructions, 'Added to the language model\u2019s instructions (tone, product names); up to 4,000 characters.'),
    h('div', { class: 'field check' }, useModel, h('label', { for: useModel.id }, 'Use the language model (when one is configured)')),
    h('div', { class: 'field check' }, speech, h('label', { for: speech.id }, 'Speak through the speech provider (text to speech v2)')),
    h('h2', {}, 'Attachment limits'),
    h('div', { class: 'grid' }, LIMITS.map(([kind, title]) => h('fieldset', { class: 'limits' }, h('legend', {}, title),
      field('Number per question', limits[kind].count), field('Largest file (MB)', limits[kind].megabytes)))),
    h('div', { class: 'actions' }, save));

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    busy(save, async () => {
      const patch = {
        model_instructions: instructions.value,
        use_model: useModel.checked,
        speech_provider: speech.checked,
        attachment_limits: Object.fromEntries(LIMITS.map(([kind]) => [kind, {
          count: Number(limits[kind].count.value),
          max_bytes: Math.round(Number(limits[kind].megabytes.value) * MB),
        }])),
      };
      try {
        await getJson('/web/api/settings', { method: 'POST', json: patch });
        status.info('Settings saved.');
      } catch (error) {
        status.error(error);
      }
    });
  });
  main.append(form);
}
