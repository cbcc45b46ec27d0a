import assert from 'node:assert/strict';
import { CredentialCache, credentialRevoked } from '../../server/src/accounts/credentialCache.js';
import { testClock } from '../helpers/runtime.js';

describe('accounts.credentialCache', () => {
  const cacheWith = (ttlMs: number, maxEntries?: number) => {
    const clock = testClock();
    return { clock, cache: new CredentialCache<string>({ ttlMs, now: clock.now, maxEntries }) };
  };

  /** What a caller does: read, and on a miss store what it read under the ticket taken before reading. */
  const remember = (cache: CredentialCache<string>, id: string, value: string) => {
    const lookup = cache.read(id);
    assert.equal(lookup.hit, false);
    if (!lookup.hit) cache.store(id, value, lookup.ticket);
  };

  it('serves a stored credential until its TTL has passed, then reads again', () => {
    const { clock, cache } = cacheWith(5000);
    remember(cache, 'a', 'key-a');
    assert.deepEqual(cache.read('a'), { hit: true, value: 'key-a' });
    clock.advance(4999);
    assert.deepEqual(cache.read('a'), { hit: true, value: 'key-a' });
    clock.advance(1);
    assert.equal(cache.read('a').hit, false);
    assert.equal(cache.size, 0, 'the expired entry is dropped');
  });

  it('serves nothing read before a revocation in this process, whatever the TTL', () => {
    const { cache } = cacheWith(60_000);
    remember(cache, 'a', 'key-a');
    remember(cache, 'b', 'key-b');
    credentialRevoked();
    assert.equal(cache.read('a').hit, false);
    assert.equal(cache.read('b').hit, false);
  });

  it('does not keep what was read while a revocation committed', () => {
    const { cache } = cacheWith(60_000);
    const lookup = cache.read('a');
    assert.equal(lookup.hit, false);
    // The database read started before the revocation and may have seen the key still active.
    credentialRevoked();
    if (!lookup.hit) cache.store('a', 'key-a', lookup.ticket);
    assert.equal(cache.read('a').hit, false);
    assert.equal(cache.size, 0);
  });

  it('keeps nothing with a TTL of 0', () => {
    const { cache } = cacheWith(0);
    remember(cache, 'a', 'key-a');
    assert.equal(cache.read('a').hit, false);
    assert.equal(cache.size, 0);
  });

  it('drops the oldest entries beyond its cap', () => {
    const { cache } = cacheWith(60_000, 2);
    remember(cache, 'a', 'key-a');
    remember(cache, 'b', 'key-b');
    remember(cache, 'c', 'key-c');
    assert.equal(cache.size, 2);
    assert.equal(cache.read('a').hit, false);
    assert.deepEqual(cache.read('c'), { hit: true, value: 'key-c' });
  });
});
