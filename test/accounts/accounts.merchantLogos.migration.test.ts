/**
 * Migration 024 (docs/decisions.md §26.23) on both databases: it makes the logo table and clears the remote icon URLs
 * the settings used to accept, which the checkout never showed and Paygate will not fetch.
 */
import assert from 'node:assert/strict';
import * as logosMigration from '../../server/src/db/migrations/024_merchant_logos.js';
import { createMerchant, createPartner } from '../../server/src/accounts/index.js';
import { setMerchantLogo } from '../../server/src/accounts/logo.js';
import { pngLogo } from '../dashboard/logoFiles.js';
import { describeEachDatabase } from '../helpers/db.js';

describeEachDatabase('accounts.merchantLogos migration', (get) => {
  it('024 clears remote icon URLs, and its table stores and returns a logo’s bytes unchanged', async () => {
    const knex = get().db.knex;
    const deps = { db: get().db, now: () => 1_700_000_000_000 };
    const partnerId = (await createPartner(deps, { name: 'Partner' })).id;
    const merchantId = (await createMerchant(deps, { partnerId, name: 'Before 024' })).id;
    await logosMigration.down(knex);
    await knex('merchants').where({ id: merchantId }).update({ icon_url: 'https://shop.example/icon.png' });
    await logosMigration.up(knex);
    const row = (await knex('merchants').where({ id: merchantId }).first('icon_url')) as { icon_url: string | null };
    assert.equal(row.icon_url, null);

    const { iconUrl } = await setMerchantLogo(deps, merchantId, pngLogo().toString('base64'));
    const stored = (await knex('merchant_logos').where({ merchant_id: merchantId }).first()) as {
      bytes: Buffer;
      sha256: string;
      width: number;
      height: number;
    };
    assert.equal(iconUrl, `/logos/${stored.sha256}.png`);
    assert.deepEqual(
      Buffer.from(stored.bytes),
      pngLogo(64, 64, false),
      'the binary column returns the bytes as written',
    );
    assert.deepEqual([Number(stored.width), Number(stored.height)], [64, 64]);
  });
});
