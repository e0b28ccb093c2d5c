// Settings: the guru's model instructions, speech v2 and attachment limits (see the per-guru settings).
import { h } from '../dom.js';

export function render(main) {
  main.append(h('h1', {}, 'Settings'), h('p', { class: 'muted' }, 'Per-guru settings arrive with the next version.'));
}
