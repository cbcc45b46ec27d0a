/**
 * A field's error as a sentence beside the field (web/src/kit/failure.ts fieldMessage; issue 31 finding 13): the
 * server's validator text ("body.url: must NOT have fewer than 1 characters") never reaches the merchant as such.
 */
import assert from 'node:assert/strict';
import { fieldMessage, type Failure } from '../../web/src/kit/failure.js';

const refused = (message: string, param: string): Failure => ({
  status: 400,
  code: 'params_validation',
  message,
  param,
  retryAfter: null,
});

describe('web.fieldErrors', () => {
  it('rewrites the validator phrases as sentences, without the field path in front', () => {
    const cases: [string, string, string][] = [
      ['body.url: must NOT have fewer than 1 characters', 'url', 'Fill in this field.'],
      ['body/name must NOT have more than 200 characters', 'name', 'Use at most 200 characters.'],
      [
        'body/amount/value must match pattern "^[1-9][0-9]{0,14}$"',
        'amount.value',
        'This is not in the expected format.',
      ],
      ['body/role must be equal to one of the allowed values', 'role', 'Choose one of the values offered.'],
      [
        'url: the address 10.1.2.3 is private; use a public one',
        'url',
        'The address 10.1.2.3 is private; use a public one.',
      ],
      ['iconUrl must be an http(s) URL', 'iconUrl', 'Must be an http(s) URL.'],
      ['since: must not be in the future.', 'since', 'Must not be in the future.'],
    ];
    for (const [message, param, expected] of cases) {
      assert.equal(fieldMessage(refused(message, param), param), expected, message);
    }
  });

  it('says nothing beside a field the failure does not name', () => {
    assert.equal(fieldMessage(refused('url: must NOT have fewer than 1 characters', 'url'), 'eventTypes'), null);
    assert.equal(fieldMessage(null, 'url'), null);
  });
});
