/**
 * The checker's comparison of a subscribed account's records with its onchain history
 * (bench/checker/network-events.ts): a follower that records a deposit twice, misses one, records
 * one the chain does not hold, or records the service's own write again must each be reported; a
 * NETWORK record whose transaction left the chain (FAILED) is not expected on chain, and must not be there.
 */
import { networkDifferences } from '../../bench/checker/network-events';

const own = { onchainId: 'seed', origin: 'SERVICE' };
const history = ['d3', 'd2', 'd1', 'seed'];
const network = (onchainId: string) => ({ onchainId, origin: 'NETWORK' });

it('agrees when every network transaction of the history has one NETWORK record and the service keeps its own', () => {
  const found = networkDifferences([own, network('d1'), network('d2'), network('d3'), { onchainId: null, origin: 'SERVICE' }], history);
  expect(found).toEqual({ networkRecords: 3, expected: 3, recorded: 3, leftChain: 0, twice: [], missing: [], extra: [] });
});

it('reports a deposit recorded twice', () => {
  expect(networkDifferences([own, network('d1'), network('d2'), network('d2'), network('d3')], history).twice).toEqual([['d2', 2]]);
});

it('reports the service’s own write recorded again as a network transaction', () => {
  const found = networkDifferences([own, network('seed'), network('d1'), network('d2'), network('d3')], history);
  expect(found.twice).toEqual([['seed', 2]]);
});

it('reports a missing deposit and a record the chain does not hold', () => {
  const found = networkDifferences([own, network('d1'), network('d3'), network('gone')], history);
  expect({ missing: found.missing, extra: found.extra }).toEqual({ missing: ['d2'], extra: ['gone'] });
});

it('takes a NETWORK record that left the chain (FAILED) as no deposit, and reports one the chain holds after all', () => {
  const left = { onchainId: 'dropped', origin: 'NETWORK', status: 'FAILED' };
  const found = networkDifferences([own, network('d1'), network('d2'), network('d3'), left], history);
  expect({ leftChain: found.leftChain, missing: found.missing, extra: found.extra }).toEqual({ leftChain: 1, missing: [], extra: [] });
  const wrong = networkDifferences([own, network('d1'), network('d2'), { ...left, onchainId: 'd3' }], history);
  expect({ missing: wrong.missing, extra: wrong.extra }).toEqual({ missing: ['d3'], extra: ['d3'] });
});
