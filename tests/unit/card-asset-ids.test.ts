import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assetId, readAssetId } from '../../src/services/loyalty/card-assets.ts';

// Asset ids are signed with the installation secret and cached once made (src/services/loyalty/card-assets.ts):
// the cache must answer exactly what signing would, for each secret, kind and voucher.

describe('card asset ids', () => {
  const first = { pepper: 'secret-one' };
  const second = { pepper: 'secret-two' };

  test('an id made again is the same, and reads back as its project and voucher', () => {
    const made = assetId(first, 'qr', 'proj_1', 'v_1');
    assert.equal(assetId(first, 'qr', 'proj_1', 'v_1'), made);
    assert.deepEqual(readAssetId(first, 'qr', made), { projectId: 'proj_1', voucherId: 'v_1' });
  });

  test('kind, project and voucher each give their own id', () => {
    const ids = new Set([
      assetId(first, 'qr', 'proj_1', 'v_1'),
      assetId(first, 'barcode', 'proj_1', 'v_1'),
      assetId(first, 'qr', 'proj_2', 'v_1'),
      assetId(first, 'qr', 'proj_1', 'v_2'),
    ]);
    assert.equal(ids.size, 4);
    assert.equal(readAssetId(first, 'barcode', assetId(first, 'qr', 'proj_1', 'v_1')), null);
  });

  test('another secret signs its own ids, before and after the first one is used again', () => {
    const mine = assetId(first, 'qr', 'proj_1', 'v_1');
    const theirs = assetId(second, 'qr', 'proj_1', 'v_1');
    assert.notEqual(theirs, mine);
    assert.deepEqual(readAssetId(second, 'qr', theirs), { projectId: 'proj_1', voucherId: 'v_1' });
    assert.equal(readAssetId(first, 'qr', theirs), null);
    assert.equal(assetId(first, 'qr', 'proj_1', 'v_1'), mine);
    assert.equal(readAssetId(second, 'qr', mine), null);
  });

  test('past the cache size, ids made earlier are made again the same', () => {
    const early = assetId(first, 'barcode', 'proj_9', 'v_early');
    for (let i = 0; i < 10_050; i++) assetId(first, 'qr', 'proj_9', `v_${i}`);
    assert.equal(assetId(first, 'barcode', 'proj_9', 'v_early'), early);
    assert.deepEqual(readAssetId(first, 'barcode', early), { projectId: 'proj_9', voucherId: 'v_early' });
  });
});
