// A small element builder: h('button', {class: 'x', onclick}, 'text').

type Attrs = Record<string, unknown>;
type Child = Node | string | number | null | undefined | false;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: (Child | Child[])[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') {
      el.addEventListener(k.slice(2), v as EventListener);
    } else if (k === 'class') {
      el.className = String(v);
    } else if (k === 'text') {
      el.textContent = String(v);
    } else if (k in el && typeof v !== 'string') {
      (el as unknown as Record<string, unknown>)[k] = v;
    } else {
      el.setAttribute(k, v === true ? '' : String(v));
    }
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : String(c));
  }
  return el;
}

export function clear(el: Element): void {
  while (el.firstChild) el.firstChild.remove();
}

let fieldSeq = 0;
/** A labelled form field with an error slot (`aria-describedby`) beside it. */
export function field(
  label: string,
  input: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement,
  hint?: string,
): HTMLElement {
  const id = input.id || `f${++fieldSeq}`;
  input.id = id;
  const err = h('span', { class: 'field-error', id: `${id}-err`, role: 'alert' });
  const describedBy = [`${id}-err`];
  let hintEl: HTMLElement | null = null;
  if (hint) {
    hintEl = h('span', { class: 'field-hint', id: `${id}-hint` }, hint);
    describedBy.push(`${id}-hint`);
  }
  input.setAttribute('aria-describedby', describedBy.join(' '));
  return h('div', { class: 'field', 'data-field': input.name }, h('label', { for: id }, label), input, hintEl, err);
}

/** Puts validation messages beside the fields named by the API (and clears the others). */
export function showFieldErrors(form: HTMLElement, fields: Record<string, string>): void {
  for (const f of Array.from(form.querySelectorAll<HTMLElement>('.field'))) {
    const name = f.dataset.field ?? '';
    const err = f.querySelector('.field-error');
    const input = f.querySelector('input,select,textarea');
    const msg = fields[name] ?? fieldsByPrefix(fields, name);
    if (err) err.textContent = msg ?? '';
    if (input) input.setAttribute('aria-invalid', msg ? 'true' : 'false');
  }
}

function fieldsByPrefix(fields: Record<string, string>, name: string): string | undefined {
  for (const [k, v] of Object.entries(fields)) if (name && k.startsWith(`${name}.`)) return v;
  return undefined;
}

export function fmtTime(iso: string | null): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}
