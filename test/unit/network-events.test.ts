/** The chain follower's matching (src/follower/network-events.ts): who a network transaction concerns, and by how much. */
import { followedSet, matchBlock, matchTransaction, type FollowedTransaction } from '../../src/follower/network-events';

const alice = { id: 'a1', organizationId: 'org-1', address: 'Alice', fromSlot: null };
const aliceElsewhere = { id: 'a2', organizationId: 'org-2', address: 'Alice', fromSlot: 100n };
const bob = { id: 'b1', organizationId: 'org-1', address: 'Bob', fromSlot: null };
const alicePosition = { id: 'p1', organizationId: 'org-1', address: 'AliceToken', ownerAccountId: 'a1', mintAddress: 'Mint' };
const strayPosition = { id: 'p9', organizationId: 'org-1', address: 'StrayToken', ownerAccountId: 'unfollowed', mintAddress: 'Mint' };
const set = followedSet([alice, aliceElsewhere, bob], [alicePosition, strayPosition]);

const tx = (fields: Partial<FollowedTransaction>): FollowedTransaction => ({
  signature: 'sig',
  err: null,
  fee: 5000n,
  accountKeys: [],
  signers: [],
  balances: [],
  tokenBalances: [],
  slot: 50n,
  blockTime: null,
  ...fields,
});

it('matches an account key (static or loaded) against the followed addresses, with its lamport change', () => {
  const deposit = tx({
    accountKeys: ['Payer', 'Alice'],
    balances: [
      { address: 'Payer', pre: 10n, post: 4n },
      { address: 'Alice', pre: 0n, post: 1n },
    ],
  });
  expect(matchTransaction(set, deposit)).toEqual([
    { organizationId: 'org-1', accounts: [{ account: alice, pre: 0n, post: 1n }], positions: [], newTokenAccounts: [] },
  ]);
});

it('follows an account only from its fromSlot (turning the flag on follows from the current slot), unless repairing history', () => {
  const at = (slot: bigint) => tx({ slot, accountKeys: ['Alice'], balances: [{ address: 'Alice', pre: 0n, post: 1n }] });
  expect(matchTransaction(set, at(99n)).map((m) => m.organizationId)).toEqual(['org-1']);
  expect(matchTransaction(set, at(100n)).map((m) => m.organizationId)).toEqual(['org-1', 'org-2']);
  expect(matchTransaction(set, at(99n), true).map((m) => m.organizationId)).toEqual(['org-1', 'org-2']);
});

it('moves a known position of a followed owner; a position of an unfollowed owner is not followed', () => {
  const moved = tx({
    accountKeys: ['Sender', 'AliceToken', 'StrayToken'],
    tokenBalances: [
      { address: 'AliceToken', mint: 'Mint', owner: 'Alice', pre: 5n, post: 8n },
      { address: 'StrayToken', mint: 'Mint', owner: 'Someone', pre: 5n, post: 2n },
    ],
  });
  const [match] = matchTransaction(set, moved);
  expect(match.positions).toEqual([{ position: alicePosition, owner: alice, pre: 5n, post: 8n }]);
  expect(match.accounts).toEqual([]);
});

it('finds a token account of a followed owner the record does not know (a deposit into a new token account names the owner only in its token balances)', () => {
  const opened = tx({ accountKeys: ['Sender', 'NewToken'], tokenBalances: [{ address: 'NewToken', mint: 'Mint', owner: 'Bob', pre: 0n, post: 7n }] });
  expect(matchTransaction(set, opened)).toEqual([
    { organizationId: 'org-1', accounts: [], positions: [], newTokenAccounts: [{ address: 'NewToken', mint: 'Mint', owner: bob, pre: 0n, post: 7n }] },
  ]);
});

it('leaves out what the service sent and what touches nobody followed', () => {
  const ours = tx({ signature: 'ours', accountKeys: ['Alice'] });
  const theirs = tx({ signature: 'theirs', accountKeys: ['Alice'] });
  const unrelated = tx({ signature: 'unrelated', accountKeys: ['Carol', 'Dave'] });
  expect(matchBlock(set, [ours, theirs, unrelated], new Set(['ours'])).map((m) => m.tx.signature)).toEqual(['theirs']);
});
