import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { roleAllows, sessionAllows, ROLES, type Role } from '../../src/domain/auth/roles.ts';
import { signInWaitMs } from '../../src/domain/auth/sign-in-throttle.ts';

// What each console role may call (route patterns as registered), and the sign-in slow-down curve.

const CASES: Array<[string, string, Record<Role, boolean>]> = [
  ['GET', '/v1/campaigns', { ADMIN: true, USER: true, VIEWER: true, MERCHANT: true }],
  ['POST', '/v1/campaigns', { ADMIN: true, USER: true, VIEWER: false, MERCHANT: false }],
  ['PUT', '/v1/campaigns/:campaignId', { ADMIN: true, USER: true, VIEWER: false, MERCHANT: false }],
  ['POST', '/v1/redemptions', { ADMIN: true, USER: true, VIEWER: false, MERCHANT: true }],
  ['POST', '/v1/validations', { ADMIN: true, USER: true, VIEWER: false, MERCHANT: true }],
  ['POST', '/v1/vouchers/:code/redemption', { ADMIN: true, USER: true, VIEWER: false, MERCHANT: true }],
  ['POST', '/v1/loyalties/:campaignId/members/:memberId/redemption', { ADMIN: true, USER: true, VIEWER: false, MERCHANT: true }],
  ['POST', '/v1/loyalties/members/:memberId/redemption', { ADMIN: true, USER: true, VIEWER: false, MERCHANT: true }],
  ['POST', '/v1/redemptions/:redemptionId/rollback', { ADMIN: true, USER: true, VIEWER: false, MERCHANT: false }],
  ['POST', '/v1/customers', { ADMIN: true, USER: true, VIEWER: false, MERCHANT: true }],
  ['PUT', '/v1/customers/:customerId', { ADMIN: true, USER: true, VIEWER: false, MERCHANT: true }],
  ['DELETE', '/v1/customers/:customerId', { ADMIN: true, USER: true, VIEWER: false, MERCHANT: false }],
  ['POST', '/v1/customers/:customerId/permanent-deletion', { ADMIN: true, USER: false, VIEWER: false, MERCHANT: false }],
  ['DELETE', '/v1/trash-bin/:binEntryId', { ADMIN: true, USER: false, VIEWER: false, MERCHANT: false }],
  ['GET', '/v1/exports', { ADMIN: true, USER: true, VIEWER: true, MERCHANT: false }],
  ['POST', '/v1/exports', { ADMIN: true, USER: true, VIEWER: false, MERCHANT: false }],
  ['POST', '/v1/oauth/token', { ADMIN: false, USER: false, VIEWER: false, MERCHANT: false }],
  ['GET', '/management/v1/projects', { ADMIN: false, USER: false, VIEWER: false, MERCHANT: false }],
  ['POST', '/management/v1/projects', { ADMIN: false, USER: false, VIEWER: false, MERCHANT: false }],
  ['GET', '/management/v1/projects/:projectId', { ADMIN: true, USER: true, VIEWER: true, MERCHANT: false }],
  ['PUT', '/management/v1/projects/:projectId', { ADMIN: true, USER: false, VIEWER: false, MERCHANT: false }],
  ['DELETE', '/management/v1/projects/:projectId', { ADMIN: false, USER: false, VIEWER: false, MERCHANT: false }],
  ['POST', '/management/v1/projects/:projectId/webhooks', { ADMIN: true, USER: false, VIEWER: false, MERCHANT: false }],
  ['PUT', '/management/v1/projects/:projectId/users/:userId', { ADMIN: true, USER: false, VIEWER: false, MERCHANT: false }],
  ['POST', '/management/v1/projects/users/invite', { ADMIN: true, USER: false, VIEWER: false, MERCHANT: false }],
  ['GET', '/management/v1/projects/:projectId/api-keys', { ADMIN: true, USER: false, VIEWER: false, MERCHANT: false }],
  ['POST', '/management/v1/projects/:projectId/api-keys/:keyId/rotate', { ADMIN: true, USER: false, VIEWER: false, MERCHANT: false }],
  ['GET', '/console/v1/session', { ADMIN: true, USER: true, VIEWER: true, MERCHANT: true }],
  ['DELETE', '/console/v1/sessions', { ADMIN: true, USER: true, VIEWER: true, MERCHANT: true }],
  ['POST', '/client/v1/redemptions', { ADMIN: false, USER: false, VIEWER: false, MERCHANT: false }],
];

describe('console roles', () => {
  for (const [method, route, expected] of CASES) {
    test(`${method} ${route}`, () => {
      for (const [role, allowed] of Object.entries(expected)) {
        assert.equal(roleAllows(role as Role, method, route), allowed, `${role} ${method} ${route}`);
      }
    });
  }

  test("the organisation's owner lists, creates and deletes projects whatever their role; nothing else widens", () => {
    const acts = [['GET', '/management/v1/projects'], ['POST', '/management/v1/projects'], ['DELETE', '/management/v1/projects/:projectId']] as const;
    for (const role of ROLES) {
      for (const [method, route] of acts) {
        assert.equal(sessionAllows({ role, owner: true }, method, route), true, `owner ${role} ${method} ${route}`);
        assert.equal(sessionAllows({ role, owner: false }, method, route), false, `${role} ${method} ${route}`);
      }
      for (const [method, route] of [['PUT', '/management/v1/projects/:projectId'], ['POST', '/v1/campaigns'], ['GET', '/management/v1/projects/:projectId/api-keys']] as const) {
        assert.equal(sessionAllows({ role, owner: true }, method, route), roleAllows(role, method, route), `owner ${role} ${method} ${route}: the role decides`);
      }
    }
  });

  test('a route that writes on a GET is a write for every role: VIEWER and MERCHANT may not call it', () => {
    const expected: Record<Role, boolean> = { ADMIN: true, USER: true, VIEWER: false, MERCHANT: false };
    for (const method of ['GET', 'HEAD']) {
      for (const [role, allowed] of Object.entries(expected)) {
        assert.equal(roleAllows(role as Role, method, '/v1/publications/create', true), allowed, `${role} ${method}`);
      }
    }
    assert.equal(roleAllows('VIEWER', 'GET', '/v1/publications/create', false), true, 'the same route, were it a read');
    assert.equal(roleAllows('VIEWER', 'GET', '/management/v1/projects/:projectId', true), false, 'a management route that writes is a change too');
    assert.equal(roleAllows('MERCHANT', 'GET', '/v1/customers/:customerId'), true, 'without a declaration, a GET is a read');
  });

  test('a route pattern, never a raw path, decides: ids cannot be crafted to match another rule', () => {
    assert.equal(roleAllows('MERCHANT', 'POST', '/v1/vouchers/redemption/redemption'), false);
    assert.equal(roleAllows('VIEWER', 'get', '/v1/customers'), true, 'methods are compared without regard to case');
  });
});

describe('sign-in slow-down', () => {
  const now = 1_000_000_000;
  test('free failures cost nothing; then the wait doubles from 1 s up to 15 min', () => {
    assert.equal(signInWaitMs(4, now, now, 5), 0);
    assert.equal(signInWaitMs(5, now, now, 5), 1000);
    assert.equal(signInWaitMs(6, now, now, 5), 2000);
    assert.equal(signInWaitMs(8, now - 3000, now, 5), 5000, 'the wait counts from the last failure');
    assert.equal(signInWaitMs(40, now, now, 5), 15 * 60 * 1000);
  });
  test('an old count no longer slows anyone down', () => {
    assert.equal(signInWaitMs(40, now - 15 * 60 * 1000, now, 5), 0);
  });
});
