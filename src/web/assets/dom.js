// Building elements without HTML strings: text is always text.

/** `h('button', { type: 'button', onClick }, 'Ask')`: attributes, `on…` listeners, then children (text or nodes). */
export function h(tag, props = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(props ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') element.addEventListener(name.slice(2).toLowerCase(), value);
    else if (name === 'class') element.className = value;
    else if (name === 'value' || name === 'checked') element[name] = value;
    else element.setAttribute(name, value === true ? '' : String(value));
  }
  element.append(...nodesOf(children));
  return element;
}

function nodesOf(children) {
  return children.flat(Infinity).filter((child) => child !== undefined && child !== null && child !== false)
    .map((child) => (child instanceof Node ? child : document.createTextNode(String(child))));
}

/** Replaces an element's children. */
export function fill(element, ...children) {
  element.replaceChildren(...nodesOf(children));
  return element;
}

let fieldCount = 0;

/** A labelled form control: `field('API key', h('input', { type: 'password' }))`. */
export function field(label, control, hint) {
  fieldCount += 1;
  control.id ||= `field-${fieldCount}`;
  const hintElement = hint === undefined ? undefined : h('small', { id: `${control.id}-hint`, class: 'hint' }, hint);
  if (hintElement) control.setAttribute('aria-describedby', hintElement.id);
  return h('div', { class: 'field' }, h('label', { for: control.id }, label), control, hintElement);
}

/** A region that announces what happens (polite) or what went wrong (alert). */
export function notice() {
  const element = h('div', { class: 'notice', role: 'status', 'aria-live': 'polite' });
  return {
    element,
    clear: () => { element.className = 'notice'; element.setAttribute('role', 'status'); fill(element); },
    info: (...text) => { element.className = 'notice info'; element.setAttribute('role', 'status'); fill(element, ...text); },
    error: (error) => { element.className = 'notice error'; element.setAttribute('role', 'alert'); fill(element, messageOf(error)); },
  };
}

export function messageOf(error) {
  if (error instanceof Error) return error.message;
  return String(error);
}

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
export const formatDate = (iso) => {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : dateFormat.format(date);
};

/** Runs `action` with the button disabled and marked busy, so it is not pressed twice. */
export async function busy(button, action) {
  button.disabled = true;
  button.setAttribute('aria-busy', 'true');
  try {
    return await action();
  } finally {
    button.disabled = false;
    button.removeAttribute('aria-busy');
  }
}

/**
 * A dangerous action behind two buttons: `label` asks `question`, and only `confirmLabel` runs
 * `action` (which reports its own outcome); Cancel puts the first button back.
 */
export function confirmedAction({ label, question, confirmLabel, action }) {
  const box = h('div', { class: 'actions' });
  const start = h('button', { type: 'button', class: 'danger' }, label);
  start.addEventListener('click', () => {
    const confirm = h('button', { type: 'button', class: 'danger' }, confirmLabel);
    const cancel = h('button', { type: 'button', class: 'quiet' }, 'Cancel');
    cancel.addEventListener('click', () => {
      fill(box, start);
      start.focus();
    });
    confirm.addEventListener('click', () => busy(confirm, action));
    fill(box, h('p', { role: 'alert' }, question), confirm, ' ', cancel);
    confirm.focus();
  });
  return fill(box, start);
}
