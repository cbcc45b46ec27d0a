/**
 * The form's inputs, built from the JSON Schema: a label per field (its `title`), a date input for `format: date`, a
 * checkbox for a boolean, `maxLength`, a required mark, the `description` as help, and a message element, all tied
 * to the input by `aria-describedby`.
 */
import type { FormData, FormRules, Problems } from './rules.js';

const AUTOCOMPLETE: Record<string, string> = {
  fullName: 'name',
  dob: 'bday',
  porCountry: 'country',
  porAddress: 'street-address',
};

interface Field {
  box: HTMLDivElement;
  input: HTMLInputElement;
  message: HTMLParagraphElement;
}

function element<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) node.className = className;
  return node;
}

export interface FormFields {
  /** Fills the string fields a wallet already knows; a checkbox never, so consent is always the buyer's own click. */
  prefill(values: Record<string, unknown>): void;
  /** What the buyer gave: a checkbox's state, and every non-blank text, trimmed. */
  read(): FormData;
  show(problems: Problems): void;
  focus(name: string): void;
}

export function formFields(rules: FormRules, container: HTMLElement): FormFields {
  const fields: Record<string, Field> = {};

  function build(name: string): Field {
    const p = rules.props[name]!;
    const box = element('div', 'field');
    box.id = `field-${name}`;
    const input = element('input');
    input.id = `in-${name}`;
    input.name = name;
    const label = element('label');
    label.htmlFor = input.id;
    if (p.type === 'boolean') {
      box.className += ' check';
      input.type = 'checkbox';
      label.appendChild(input);
      label.appendChild(document.createTextNode(rules.titleOf(name)));
    } else {
      input.type = p.format === 'date' ? 'date' : 'text';
      if (typeof p.maxLength === 'number') input.maxLength = p.maxLength;
      const autocomplete = AUTOCOMPLETE[name];
      if (autocomplete) input.autocomplete = autocomplete as AutoFill;
      label.textContent = rules.titleOf(name);
    }
    if (rules.required.includes(name)) {
      input.setAttribute('aria-required', 'true');
      const mark = element('span', 'req');
      mark.setAttribute('aria-hidden', 'true');
      mark.textContent = '*';
      label.appendChild(mark);
    }
    box.appendChild(label);
    if (p.type !== 'boolean') box.appendChild(input);
    const describedBy: string[] = [];
    if (p.description) {
      const help = element('p', 'help');
      help.id = `help-${name}`;
      help.textContent = p.description;
      box.appendChild(help);
      describedBy.push(help.id);
    }
    const message = element('p', 'error');
    message.id = `error-${name}`;
    message.hidden = true;
    box.appendChild(message);
    describedBy.push(message.id);
    input.setAttribute('aria-describedby', describedBy.join(' '));
    return { box, input, message };
  }

  let noteShown = false;
  for (const name of rules.names) {
    if (rules.groups.length > 1 && !noteShown && rules.inGroup(name)) {
      const note = element('p', 'note');
      note.id = 'groups-note';
      note.textContent = rules.groupsText();
      container.appendChild(note);
      noteShown = true;
    }
    fields[name] = build(name);
    container.appendChild(fields[name].box);
  }

  return {
    prefill(values) {
      for (const [name, value] of Object.entries(values)) {
        const p = rules.props[name];
        if (p && p.type === 'string' && typeof value === 'string') fields[name]!.input.value = value;
      }
    },
    read() {
      const data: FormData = {};
      for (const name of rules.names) {
        const input = fields[name]!.input;
        if (input.type === 'checkbox') {
          data[name] = input.checked;
        } else {
          const value = input.value.trim();
          if (value !== '') data[name] = value;
        }
      }
      return data;
    },
    show(problems) {
      for (const name of rules.names) {
        const { box, input, message } = fields[name]!;
        const problem = problems.fields[name];
        message.textContent = problem || '';
        message.hidden = !problem;
        box.classList.toggle('invalid', Boolean(problem));
        if (problem) input.setAttribute('aria-invalid', 'true');
        else input.removeAttribute('aria-invalid');
      }
    },
    focus(name) {
      fields[name]!.input.focus();
    },
  };
}
