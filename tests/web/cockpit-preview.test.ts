import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { cockpitHref, previewBrand, sampleWallet, type BrandingValues } from '../../web/src/cockpit/sample.ts';

// The console's branding preview draws the brand the cockpit would derive from what is typed, as the
// server does (src/services/cockpit/wallet.ts): the project's name without one, links only when http(s)
// (a bare host read as https), the address in one line, and the logo only once it is a whole address.

const empty = (): BrandingValues => ({
  brand: { name: '', privacy_policy_url: '', terms_of_use_url: '', permission_reminder: '', website_url: '' },
  address: { street: '', city: '', postal: '', state: '', country: '' },
  contact: { email: '', phone: '' },
  cockpit: { logo_url: '', primary_color: '', accent_color: '' },
});
const colors = { primary: '#111111', accent: '#222222' };

describe('console: cockpit branding preview', () => {
  test('without values: the project name, no links, no address, no contact', () => {
    const brand = previewBrand(empty(), 'Corner Shop', 'EUR', colors);
    assert.equal(brand.name, 'Corner Shop');
    assert.equal(brand.primary_color, '#111111');
    assert.equal(brand.accent_color, '#222222');
    assert.deepEqual([brand.logo_url, brand.website_url, brand.address, brand.contact.email, brand.permission_reminder], [null, null, null, null, null]);
    assert.equal(brand.currency, 'EUR');
  });

  test('what is typed, trimmed; the address reads as the cockpit writes it', () => {
    const values = empty();
    values.brand.name = '  Bean There ';
    values.brand.website_url = 'beanthere.example.com';
    values.brand.terms_of_use_url = 'javascript:alert(1)';
    values.address = { street: 'Roastery Lane 4', city: 'Leeds', postal: 'LS1 4AP', state: '', country: 'United Kingdom' };
    const brand = previewBrand(values, 'Corner Shop', '', colors);
    assert.equal(brand.name, 'Bean There');
    assert.equal(brand.website_url, 'https://beanthere.example.com/');
    assert.equal(brand.terms_of_use_url, null, 'a link that is not http(s) is never drawn');
    assert.equal(brand.address, 'Roastery Lane 4, LS1 4AP Leeds, United Kingdom');
  });

  test('the logo is drawn only once its address is whole', () => {
    const values = empty();
    for (const [typed, drawn] of [
      ['https://cdn', null],
      ['cdn.example.com/logo.png', null],
      ['https://cdn.example.com/logo.png', 'https://cdn.example.com/logo.png'],
    ] as const) {
      values.cockpit.logo_url = typed;
      assert.equal(previewBrand(values, 'Shop', '', colors).logo_url, drawn, typed);
    }
    assert.equal(cockpitHref('ftp://files.example.com'), null);
  });

  test('the sample wallet carries a loyalty card with a balance, a coupon and a gift card, and links nowhere', () => {
    const wallet = sampleWallet(previewBrand(empty(), 'Shop', 'EUR', colors));
    assert.equal(wallet.loyalty_cards.length, 1);
    assert.ok((wallet.loyalty_cards[0]?.balance ?? 0) > 0);
    assert.equal(wallet.vouchers.length, 1);
    assert.equal(wallet.gift_cards.length, 1);
    const codes = [...wallet.loyalty_cards, ...wallet.vouchers, ...wallet.gift_cards];
    assert.ok(codes.every((c) => c.qr_url === null && c.barcode_url === null), 'no image is fetched from the API');
    assert.equal(wallet.loyalty_cards[0]?.history.has_more, false, 'no older history to fetch');
  });
});
