import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hashSecret, SecretCheck } from '../../src/lib/secrets.ts';

const pepper = 'p'.repeat(64);
const secret = 'Abcdefghijklmnopqrstuvwxyz0123456789';

test('a SecretCheck accepts its secret again after a match and refuses anything else, before and after', () => {
  const check = new SecretCheck(pepper, hashSecret(pepper, secret));
  assert.equal(check.matches(`${secret.slice(0, -1)}X`), false, 'same length, one character off, before any match');
  assert.equal(check.matches(secret), true);
  assert.equal(check.matches(secret), true, 'the remembered secret');
  assert.equal(check.matches(`${secret.slice(0, -1)}X`), false, 'same length, one character off, after a match');
  assert.equal(check.matches(secret.slice(0, -1)), false, 'a prefix');
  assert.equal(check.matches(`${secret}0`), false, 'longer');
  assert.equal(check.matches(''), false);
  assert.equal(check.matches(secret), true, 'still the secret after refusals');
});

test('a SecretCheck never remembers a secret that did not match its hash', () => {
  const check = new SecretCheck(pepper, hashSecret(pepper, secret));
  const other = 'Z'.repeat(secret.length);
  assert.equal(check.matches(other), false);
  assert.equal(check.matches(other), false, 'a refused secret is not remembered');
  assert.equal(new SecretCheck('q'.repeat(64), hashSecret(pepper, secret)).matches(secret), false, 'another pepper');
});
