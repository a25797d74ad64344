/**
 * The chain follower's name-based ids are stored (record ids) and sent (webhook eventIds): the same
 * names must give the same ids forever. Pinned from the ids the first implementation wrote.
 */
import { networkEventId, networkTransactionId, uuidV5 } from '../../src/follower/ids';

const organizationId = '1e4b7c2a-9d3f-4a6e-8b1c-5f2d9a7e3c18';
const signature = '5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBGZW3ZtUHm8PDk';

it('gives a network transaction its record id and each account its eventId, as already stored and delivered', () => {
  const transactionId = networkTransactionId(organizationId, 'LOCAL', signature);
  expect(transactionId).toBe('ef072b9a-92a7-5cbf-9e1d-45c8ee69676c');
  expect(networkEventId(transactionId, '0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0')).toBe('acd5ad12-e0f7-5ac1-a8b4-2a40185974ba');
});

it('gives the same name-based ids in the ledger namespace (UTF-8 names, the empty name)', () => {
  expect(uuidV5(`network-position:${organizationId}:MAINNET:So11111111111111111111111111111111111111112`)).toBe('bb424ac8-b215-5f61-aa24-a011885def51');
  expect(uuidV5('ünïcødé ✓')).toBe('602f352d-5252-5a84-a1e0-61a171d1e2ca');
  expect(uuidV5('')).toBe('29bd6c7a-52fd-561e-9901-21c508f62f8e');
});
