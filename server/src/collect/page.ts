/**
 * The data-collection web page: one self-contained HTML document (no external loads) whose inputs are built in the
 * browser from the JSON Schema, validated there before anything is sent, and posted as JSON to the same address.
 * When it is done it tells the wallet, through every channel wallets listen on (docs/decisions.md §16):
 * `{type: 'IC_COMPLETE'}`, or `{type: 'IC_ERROR', error, message}` when it cannot go on.
 *
 * The script and the style are constants, so the Content-Security-Policy allows exactly them by hash
 * (`collectPageCsp`) rather than any inline code; the per-page data travels in a JSON block, which is not executed.
 */
import { createHash } from 'node:crypto';

const STYLE = `
*,*::before,*::after{box-sizing:border-box}
[hidden]{display:none!important}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1a1a1a;background:#f6f7f9}
main{max-width:32rem;margin:0 auto;padding:1.5rem 1rem 3rem}
h1{font-size:1.35rem;margin:0 0 .5rem}
h2{font-size:1.15rem;margin:1.5rem 0 .5rem}
.intro,.help,.note{color:#555}
.help{font-size:.85rem;margin:.25rem 0 0}
.note{font-size:.9rem;margin:1.5rem 0 .25rem}
.field{margin:1rem 0}
label{display:block;font-weight:600;margin-bottom:.25rem}
.check label{display:flex;gap:.5rem;align-items:flex-start}
input[type=text],input[type=date]{width:100%;padding:.6rem .7rem;font:inherit;border:1px solid #b5b5b5;border-radius:.4rem;background:#fff;color:inherit}
input[type=checkbox]{width:1.15rem;height:1.15rem;margin:.2rem 0 0}
.invalid input{border-color:#c62828}
.error,#form-error,#failed-text{color:#c62828}
.error{font-size:.85rem;margin:.25rem 0 0}
.req{color:#c62828;margin-left:.2rem}
button{margin-top:1rem;width:100%;padding:.75rem;font:inherit;font-weight:600;color:#fff;background:#1f5eff;border:0;border-radius:.4rem;cursor:pointer}
button:disabled{opacity:.6;cursor:default}
`;

/**
 * Plain ES2017 for any web view. It understands the JSON Schema keywords the form uses (type, title, description,
 * minLength, maxLength, pattern, format date, const, required, anyOf of required lists) and leaves anything else to
 * the server, which validates again with the full schema.
 */
const SCRIPT = String.raw`
(function () {
  'use strict';
  var BRIDGE = 'payDataCollectionComplete';
  var config = JSON.parse(document.getElementById('collect-config').textContent);
  var form = document.getElementById('form');
  var fieldsBox = document.getElementById('fields');
  var formError = document.getElementById('form-error');
  var submit = document.getElementById('submit');
  var done = document.getElementById('done');
  var failed = document.getElementById('failed');
  var failedText = document.getElementById('failed-text');

  // The wallet may be a web page that opened or framed this one, a React Native, iOS (WKWebView) or Android web view.
  function notify(message) {
    var text = JSON.stringify(message);
    [window.opener, window.parent].forEach(function (target) {
      if (!target || target === window) return;
      try { target.postMessage(message, '*'); } catch (e) { /* a closed or foreign window */ }
    });
    try {
      if (window.ReactNativeWebView && window.ReactNativeWebView.postMessage) window.ReactNativeWebView.postMessage(text);
    } catch (e) { /* not a React Native web view */ }
    try {
      var handlers = window.webkit && window.webkit.messageHandlers;
      if (handlers && handlers[BRIDGE]) handlers[BRIDGE].postMessage(message);
    } catch (e) { /* not a WKWebView with the handler */ }
    try {
      if (window.AndroidWallet && window.AndroidWallet.onDataCollectionComplete) window.AndroidWallet.onDataCollectionComplete(text);
    } catch (e) { /* not an Android web view with the bridge */ }
  }

  function fail(message) {
    form.hidden = true;
    failedText.textContent = message;
    failed.hidden = false;
    notify({ type: 'IC_ERROR', error: message, message: message });
  }

  if (config.error) {
    fail(config.error.message);
    return;
  }

  var schema = config.schema;
  var props = schema.properties || {};
  var names = Object.keys(props);
  var required = Array.isArray(schema.required) ? schema.required : [];
  var groups = (Array.isArray(schema.anyOf) ? schema.anyOf : [])
    .filter(function (b) { return b && Array.isArray(b.required); })
    .map(function (b) { return b.required; });
  var AUTOCOMPLETE = { fullName: 'name', dob: 'bday', porCountry: 'country', porAddress: 'street-address' };
  var inputs = {};
  var messages = {};
  var boxes = {};

  function element(tag, className) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    return node;
  }
  function titleOf(name) { return (props[name] && props[name].title) || name; }
  function groupText(group) { return group.map(titleOf).join(' and '); }
  function inGroup(name) { return groups.some(function (g) { return g.indexOf(name) >= 0; }); }

  var noteShown = false;
  names.forEach(function (name) {
    var p = props[name];
    if (groups.length > 1 && !noteShown && inGroup(name)) {
      var note = element('p', 'note');
      note.id = 'groups-note';
      note.textContent = 'Give ' + groups.map(groupText).join(', or ') + '.';
      fieldsBox.appendChild(note);
      noteShown = true;
    }
    var box = element('div', 'field');
    box.id = 'field-' + name;
    var input = element('input');
    input.id = 'in-' + name;
    input.name = name;
    var label = element('label');
    label.htmlFor = input.id;
    if (p.type === 'boolean') {
      box.className += ' check';
      input.type = 'checkbox';
      label.appendChild(input);
      label.appendChild(document.createTextNode(titleOf(name)));
    } else {
      input.type = p.format === 'date' ? 'date' : 'text';
      if (typeof p.maxLength === 'number') input.maxLength = p.maxLength;
      if (AUTOCOMPLETE[name]) input.autocomplete = AUTOCOMPLETE[name];
      label.textContent = titleOf(name);
    }
    if (required.indexOf(name) >= 0) {
      input.setAttribute('aria-required', 'true');
      var mark = element('span', 'req');
      mark.setAttribute('aria-hidden', 'true');
      mark.textContent = '*';
      label.appendChild(mark);
    }
    box.appendChild(label);
    if (p.type !== 'boolean') box.appendChild(input);
    var describedBy = [];
    if (p.description) {
      var help = element('p', 'help');
      help.id = 'help-' + name;
      help.textContent = p.description;
      box.appendChild(help);
      describedBy.push(help.id);
    }
    var message = element('p', 'error');
    message.id = 'error-' + name;
    message.hidden = true;
    box.appendChild(message);
    describedBy.push(message.id);
    input.setAttribute('aria-describedby', describedBy.join(' '));
    inputs[name] = input;
    messages[name] = message;
    boxes[name] = box;
    fieldsBox.appendChild(box);
  });

  var query = new URLSearchParams(window.location.search);
  var token = query.get('t') || '';

  // WalletConnect Pay's convention: ?prefill=<base64 of a JSON object> with values the wallet already knows.
  function decodePrefill(raw) {
    if (!raw) return {};
    try {
      var b64 = raw.replace(/ /g, '+').replace(/-/g, '+').replace(/_/g, '/');
      while (b64.length % 4) b64 += '=';
      var binary = atob(b64);
      var bytes = new Uint8Array(binary.length);
      for (var i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
      var value = JSON.parse(new TextDecoder().decode(bytes));
      return value && typeof value === 'object' && !Array.isArray(value) ? value : {};
    } catch (e) {
      return {};
    }
  }
  var prefill = decodePrefill(query.get('prefill'));
  Object.keys(prefill).forEach(function (name) {
    if (props[name] && props[name].type === 'string' && typeof prefill[name] === 'string') inputs[name].value = prefill[name];
  });

  function read() {
    var data = {};
    names.forEach(function (name) {
      var input = inputs[name];
      if (input.type === 'checkbox') {
        data[name] = input.checked;
      } else {
        var value = input.value.trim();
        if (value !== '') data[name] = value;
      }
    });
    return data;
  }

  function isDate(value) {
    var m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
    if (!m) return false;
    var y = Number(m[1]), mo = Number(m[2]), d = Number(m[3]);
    var date = new Date(0);
    date.setUTCFullYear(y, mo - 1, d);
    return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d;
  }

  function check(name, value) {
    var p = props[name];
    if (p.type === 'string') {
      if (typeof value !== 'string') return 'Enter text.';
      var length = Array.from(value).length;
      if (typeof p.minLength === 'number' && length < p.minLength) {
        return p.minLength === 1 ? 'Required.' : 'Enter at least ' + p.minLength + ' characters.';
      }
      if (typeof p.maxLength === 'number' && length > p.maxLength) return 'Enter at most ' + p.maxLength + ' characters.';
      if (typeof p.pattern === 'string' && !new RegExp(p.pattern, 'u').test(value)) {
        return 'Not in the expected form.' + (p.description ? ' ' + p.description : '');
      }
      if (p.format === 'date' && !isDate(value)) return 'Enter a real date (YYYY-MM-DD).';
    } else if (p.type === 'boolean' && typeof value !== 'boolean') {
      return 'Check or clear this box.';
    }
    if (Object.prototype.hasOwnProperty.call(p, 'const') && value !== p.const) {
      return p.const === true ? 'Check this box to continue.' : 'This value is not accepted.';
    }
    return null;
  }

  function has(data, name) { return Object.prototype.hasOwnProperty.call(data, name); }

  function validate(data) {
    var found = {};
    var summary = '';
    required.forEach(function (name) { if (props[name] && !has(data, name)) found[name] = 'Required.'; });
    names.forEach(function (name) {
      if (has(data, name) && !found[name]) {
        var problem = check(name, data[name]);
        if (problem) found[name] = problem;
      }
    });
    var complete = groups.some(function (g) { return g.every(function (n) { return has(data, n); }); });
    if (groups.length && !complete) {
      // The pair the buyer started is the one to finish; with none started, the first.
      var best = groups[0];
      var bestCount = -1;
      groups.forEach(function (g) {
        var count = g.filter(function (n) { return has(data, n); }).length;
        if (count > bestCount) { best = g; bestCount = count; }
      });
      var given = best.filter(function (n) { return has(data, n); });
      var others = groups.filter(function (g) { return g !== best; }).map(groupText).join(' or ');
      best.forEach(function (n) {
        if (has(data, n) || found[n]) return;
        found[n] = given.length
          ? 'Required with ' + given.map(titleOf).join(' and ') + '.'
          : 'Required, unless you give ' + others + '.';
      });
      summary = 'Give ' + groups.map(groupText).join(', or ') + '.';
    }
    return { fields: found, summary: summary };
  }

  function show(result) {
    names.forEach(function (name) {
      var problem = result.fields[name];
      messages[name].textContent = problem || '';
      messages[name].hidden = !problem;
      boxes[name].classList.toggle('invalid', Boolean(problem));
      if (problem) inputs[name].setAttribute('aria-invalid', 'true');
      else inputs[name].removeAttribute('aria-invalid');
    });
    var invalid = names.some(function (n) { return result.fields[n]; });
    formError.textContent = result.summary || (invalid ? 'Correct the fields marked above.' : '');
    formError.hidden = !formError.textContent;
  }

  function retry(message) {
    submit.disabled = false;
    formError.textContent = message;
    formError.hidden = false;
  }

  var sending = false;
  form.addEventListener('submit', function (event) {
    event.preventDefault();
    if (sending) return;
    var data = read();
    var result = validate(data);
    show(result);
    var first = names.filter(function (n) { return result.fields[n]; })[0];
    if (first) { inputs[first].focus(); return; }
    if (result.summary) return;
    sending = true;
    submit.disabled = true;
    fetch(window.location.pathname + '?t=' + encodeURIComponent(token), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(data),
      credentials: 'same-origin',
      cache: 'no-store'
    }).then(function (res) {
      return res.text().then(function (text) {
        var body = null;
        try { body = text ? JSON.parse(text) : null; } catch (e) { body = null; }
        return { ok: res.ok, status: res.status, body: body };
      });
    }).then(function (answer) {
      sending = false;
      if (answer.ok) {
        form.hidden = true;
        done.hidden = false;
        notify({ type: 'IC_COMPLETE' });
        return;
      }
      var message = answer.body && typeof answer.body.message === 'string'
        ? answer.body.message
        : 'The server answered ' + answer.status + '.';
      // The buyer can fix the data (400) or try again later (429, 5xx); anything else ends the form.
      if (answer.status === 400 || answer.status === 429 || answer.status >= 500) retry(message);
      else fail(message);
    }, function () {
      sending = false;
      retry('Your details could not be sent. Check the connection and try again.');
    });
  });
})();
`;

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/** CSP sources that allow this page's own script and style and nothing else inline. */
export const collectPageCsp = { scriptSrc: sha256(SCRIPT), styleSrc: sha256(STYLE) } as const;

export type CollectPageView =
  { schema: Readonly<Record<string, unknown>> } | { error: { code: string; message: string } };

/** JSON inside <script>: `<` never appears raw, so the data cannot close the element or open a comment. */
function scriptSafeJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

export function renderCollectPage(view: CollectPageView): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>Your details for this payment</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<h1>Your details for this payment</h1>
<p class="intro">Payments like this one must record who is paying (the travel rule). Your details are stored encrypted with this payment.</p>
<noscript><p>This form needs JavaScript.</p></noscript>
<form id="form" novalidate>
<div id="fields"></div>
<p id="form-error" role="alert" hidden></p>
<button type="submit" id="submit">Continue</button>
</form>
<div id="done" role="status" hidden><h2>Thank you</h2><p>Your details were received. Return to your wallet to finish the payment.</p></div>
<div id="failed" role="alert" hidden><h2>This form cannot be used</h2><p id="failed-text"></p></div>
</main>
<script type="application/json" id="collect-config">${scriptSafeJson(view)}</script>
<script>${SCRIPT}</script>
</body>
</html>
`;
}
