import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sortableIds } from '../../src/lib/ids.ts';
import { secretMatches } from '../../src/lib/secrets.ts';
import { bootstrap, rotateGeneratedKeys } from '../../src/services/projects/bootstrap.ts';
import { findDefaultProject, toProjectObject } from '../../src/store/projects.ts';
import { findManagementKey, listLiveApiKeys } from '../../src/store/keys.ts';
import { TestClock, testConfig } from '../helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';

describe('first start: pepper, default project and keys', () => {
  let db: TestDatabase;
  const clock = new TestClock();
  before(async () => {
    db = await createTestDatabase();
  });
  after(async () => db.close());

  const base = () => ({ db: db.db, dialect: db.dialect, clock, ids: sortableIds });
  const generatedConfig = testConfig({
    defaultProject: { serverKey: null, clientKey: null, clientOrigins: null },
    managementKey: null,
  });

  test('without fixed keys the first start generates every key once, and later starts reuse them', async () => {
    const first = await bootstrap({ ...base(), config: generatedConfig });
    assert.ok(first.generated.management && first.generated.server && first.generated.client);
    const project = await findDefaultProject(db.db);
    assert.equal(project?.id, first.defaultProjectId);
    // Secure by default: no trusted origin, no client-side action until configured.
    const shown = toProjectObject(project!);
    assert.deepEqual(shown.client_trusted_domains, []);
    assert.equal(shown.client_redeem_enabled, false);
    assert.equal(shown.client_publish_enabled, false);
    assert.equal(shown.client_create_customer_enabled, false);

    const [server] = await listLiveApiKeys(db.db, first.defaultProjectId, 'server');
    assert.equal(server?.app_id, first.generated.server.id);
    assert.notEqual(server?.secret_hash, first.generated.server.secret, 'stored hashed');
    assert.ok(secretMatches(first.pepper, first.generated.server.secret, server!.secret_hash));

    const second = await bootstrap({ ...base(), config: generatedConfig });
    assert.deepEqual(second.generated, {});
    assert.equal(second.defaultProjectId, first.defaultProjectId);
    assert.equal(second.pepper, first.pepper);
  });

  test('keys fixed in the environment are added and win; origins follow the environment', async () => {
    const fixed = testConfig({
      defaultProject: {
        serverKey: { id: 'env-app-id-1', secret: 'env-app-secret-1' },
        clientKey: { id: 'env-client-id-1', secret: 'env-client-secret-1' },
        clientOrigins: ['https://env.example.com'],
      },
      managementKey: { id: 'env-mgmt-id-1', secret: 'env-mgmt-secret-1' },
    });
    const result = await bootstrap({ ...base(), config: fixed });
    assert.deepEqual(result.generated, {});
    const servers = await listLiveApiKeys(db.db, result.defaultProjectId, 'server');
    const envKey = servers.find((k) => k.app_id === 'env-app-id-1');
    assert.ok(envKey && secretMatches(result.pepper, 'env-app-secret-1', envKey.secret_hash));
    const mgmt = await findManagementKey(db.db, 'env-mgmt-id-1');
    assert.ok(mgmt && secretMatches(result.pepper, 'env-mgmt-secret-1', mgmt.secret_hash));
    const project = await findDefaultProject(db.db);
    assert.deepEqual(toProjectObject(project!).client_trusted_domains, ['https://env.example.com']);

    // A changed secret for the same id replaces the stored one.
    const changed = testConfig({ ...fixed, defaultProject: { ...fixed.defaultProject, serverKey: { id: 'env-app-id-1', secret: 'env-app-secret-2' } } });
    await bootstrap({ ...base(), config: changed });
    const [again] = (await listLiveApiKeys(db.db, result.defaultProjectId, 'server')).filter((k) => k.app_id === 'env-app-id-1');
    assert.ok(again && secretMatches(result.pepper, 'env-app-secret-2', again.secret_hash));
    assert.ok(!secretMatches(result.pepper, 'env-app-secret-1', again.secret_hash));
  });

  test('rotation revokes the default project keys and issues new ones', async () => {
    const boot = await bootstrap({ ...base(), config: generatedConfig });
    const before = await listLiveApiKeys(db.db, boot.defaultProjectId, 'client');
    const rotated = await rotateGeneratedKeys({ ...base(), config: generatedConfig, pepper: boot.pepper });
    assert.ok(rotated.server && rotated.client && rotated.management);
    const after = await listLiveApiKeys(db.db, boot.defaultProjectId, 'client');
    assert.equal(after.length, 1);
    assert.equal(after[0]?.app_id, rotated.client.id);
    assert.ok(before.every((k) => k.app_id !== rotated.client?.id));
  });
});
