import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ApiError } from '../../web/src/api/errors.ts';
import { fieldMessageOf, fieldOfError, messageOf } from '../../web/src/api/field-errors.ts';

// The console shows an API error beside the field it names, in words for a person: the member's path is
// the field's label already, so it is left out there (and kept in the message shown above a form).

const refused = (details: string) => new ApiError(400, { code: 400, key: 'invalid_payload', message: 'Invalid payload', details });

describe('console: field errors', () => {
  test('a property error beside its field drops the path and starts with a capital', () => {
    const error = refused('Property .password must have at least 10 characters');
    assert.equal(fieldOfError(error, { next: 'password' }), 'next');
    assert.equal(fieldMessageOf(error), 'Must have at least 10 characters');
    assert.equal(messageOf(error), 'Property .password must have at least 10 characters');
  });

  test('a nested path and a missing member', () => {
    assert.equal(fieldMessageOf(refused('Property .discount.amount_off should be integer')), 'Should be integer');
    assert.equal(fieldMessageOf(refused("Payload should have required property 'name'")), 'Required');
    assert.equal(fieldMessageOf(refused("Property .customer should have required property 'email'")), 'Required');
  });

  test('a message that names no property is shown as the API wrote it', () => {
    assert.equal(fieldMessageOf(refused('The invitation link is unknown, used or expired')), 'The invitation link is unknown, used or expired');
    assert.equal(fieldMessageOf(new Error('offline')), 'offline');
  });
});
