// authorize(), authorizeAll() and authorizeEach(): the only makers of the Authorized brand, and
// each runs its check before branding.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { authorize, authorizeAll, authorizeEach, type Authorized } from '../../src/core/authz.ts';
import { DomainError, denied } from '../../src/core/errors.ts';

/** What a mutating store call looks like: it takes checked ids only. */
const change = (id: Authorized<number>) => id;

describe('authorize', () => {
  it('runs the check on the value and returns the value when it passes', () => {
    const seen: number[] = [];
    const id = authorize(7, (v) => (seen.push(v), true), () => denied('no'));
    assert.equal(change(id), 7);
    assert.deepEqual(seen, [7]);
  });

  it('throws the refusal, made from the value, when the check fails: nothing is branded', () => {
    let branded: Authorized<number> | undefined;
    assert.throws(
      () => { branded = authorize(7, () => false, (v) => denied(`permission denied: list ${v}`)); },
      (err: unknown) => err instanceof DomainError && err.kind === 'denied' && err.message === 'permission denied: list 7',
    );
    assert.equal(branded, undefined);
  });

  it('lets a refusal the check throws itself through', () => {
    assert.throws(() => authorize(7, () => { throw denied('the step that failed'); }, () => denied('no')), /the step that failed/);
  });

  it('is the only way to the brand: a plain number does not type-check where a checked id is needed', () => {
    // @ts-expect-error a number no check has seen is not Authorized<number>
    assert.equal(change(7), 7);
  });
});

describe('authorizeAll', () => {
  it('checks the whole list once and brands every value', () => {
    const calls: (readonly number[])[] = [];
    const ids = authorizeAll([1, 2, 3], (vs) => (calls.push(vs), true), () => denied('no'));
    assert.deepEqual(ids.map(change), [1, 2, 3]);
    assert.deepEqual(calls, [[1, 2, 3]]);
  });

  it('refuses them all when the check fails', () => {
    assert.throws(() => authorizeAll([1, 2, 3], (vs) => !vs.includes(2), () => denied('permission denied: subscriber 2')), /subscriber 2/);
  });
});

describe('authorizeEach', () => {
  it('keeps, branded and in order, the values that pass, and leaves out the others', () => {
    const seen: number[] = [];
    const ids = authorizeEach([1, 2, 3, 4], (v) => (seen.push(v), v % 2 === 0));
    assert.deepEqual(ids.map(change), [2, 4]);
    assert.deepEqual(seen, [1, 2, 3, 4]);
  });
});
