import type { Knex } from 'knex';

/** The smallest partner + merchant a payment can belong to, written straight through the tables. */
export async function seedMerchant(knex: Knex, id = 'mer_lifecycle0000001'): Promise<string> {
  const partnerId = `ptn_${id.slice(4)}`;
  await knex('partners').insert({ id: partnerId, name: 'Partner', created_at: 0 });
  await knex('merchants').insert({
    id,
    partner_id: partnerId,
    name: 'Merchant',
    settlement_addresses: '{}',
    created_at: 0,
  });
  return id;
}
