/**
 * The data-collection form (docs/decisions.md §16): builds its inputs from the JSON Schema in the config block,
 * checks them before anything is sent, posts them as JSON to its own address, and tells the wallet how it ended.
 */
import { CONFIG_ELEMENT_ID } from '../pageConfig.js';
import type { CollectPageConfig, FormSchema } from './config.js';
import { formFields } from './fields.js';
import { notify } from './notify.js';
import { decodePrefill } from './prefill.js';
import { formRules } from './rules.js';
import './styles.css';
import { byId } from '../standalone/dom.js';

const config = JSON.parse(byId(CONFIG_ELEMENT_ID).textContent || 'null') as CollectPageConfig;
const form = byId<HTMLFormElement>('form');
const formError = byId('form-error');
const submit = byId<HTMLButtonElement>('submit');

function fail(message: string): void {
  form.hidden = true;
  byId('failed-text').textContent = message;
  byId('failed').hidden = false;
  notify({ type: 'IC_ERROR', error: message, message });
}

function retry(message: string): void {
  submit.disabled = false;
  formError.textContent = message;
  formError.hidden = false;
}

interface Answer {
  ok: boolean;
  status: number;
  body: { message?: unknown } | null;
}

async function send(url: string, data: unknown): Promise<Answer> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(data),
    credentials: 'same-origin',
    cache: 'no-store',
  });
  const text = await res.text();
  let body: Answer['body'] = null;
  try {
    body = text ? (JSON.parse(text) as Answer['body']) : null;
  } catch {
    body = null;
  }
  return { ok: res.ok, status: res.status, body };
}

function start(schema: FormSchema): void {
  const rules = formRules(schema);
  const fields = formFields(rules, byId('fields'));
  const query = new URLSearchParams(window.location.search);
  const token = query.get('t') || '';
  fields.prefill(decodePrefill(query.get('prefill')));

  let sending = false;
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (sending) return;
    const data = fields.read();
    const problems = rules.validate(data);
    fields.show(problems);
    const invalid = rules.names.filter((name) => problems.fields[name]);
    formError.textContent = problems.summary || (invalid.length ? 'Correct the fields marked above.' : '');
    formError.hidden = !formError.textContent;
    if (invalid[0]) {
      fields.focus(invalid[0]);
      return;
    }
    if (problems.summary) return;
    sending = true;
    submit.disabled = true;
    send(`${window.location.pathname}?t=${encodeURIComponent(token)}`, data).then(
      (answer) => {
        sending = false;
        if (answer.ok) {
          form.hidden = true;
          byId('done').hidden = false;
          notify({ type: 'IC_COMPLETE' });
          return;
        }
        const message =
          answer.body && typeof answer.body.message === 'string'
            ? answer.body.message
            : `The server answered ${answer.status}.`;
        // The buyer can fix the data (400) or try again later (429, 5xx); anything else ends the form.
        if (answer.status === 400 || answer.status === 429 || answer.status >= 500) retry(message);
        else fail(message);
      },
      () => {
        sending = false;
        retry('Your details could not be sent. Check the connection and try again.');
      },
    );
  });
}

if ('error' in config) fail(config.error.message);
else start(config.schema);
