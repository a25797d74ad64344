/** The durable-nonce Lifetime over a fake network and fake reservations (plain objects): what a message gets, and when it is over. */
import { getNonceEncoder, NonceState, NonceVersion, SYSTEM_PROGRAM_ADDRESS } from '@solana-program/system';
import { address, createTransactionMessage, generateKeyPairSigner, pipe, setTransactionMessageFeePayer, type Address } from '@solana/kit';
import { durableNonceLifetime, type NonceReservations } from '../../src/network/lifetime';
import type { SvmNetwork } from '../../src/network/svm-network';

const newAddress = async () => (await generateKeyPairSigner()).address;

async function setup() {
  const [nonceAccount, nonceAuthority, hash1, hash2] = await Promise.all([newAddress(), newAddress(), newAddress(), newAddress()]);
  const chain = { nonce: hash1 as Address };
  const data = () =>
    new Uint8Array(
      getNonceEncoder().encode({
        version: NonceVersion.Current,
        state: NonceState.Initialized,
        authority: nonceAuthority,
        blockhash: chain.nonce,
        lamportsPerSignature: 5000,
      }),
    );
  const network = {
    getAccount: async (a: string) => (a === nonceAccount ? { owner: SYSTEM_PROGRAM_ADDRESS, lamports: 1n, data: data() } : null),
  } as unknown as SvmNetwork;
  const held = new Map<string, string>();
  const noted: string[] = [];
  const reservations: NonceReservations = {
    async reserve(transactionId) {
      held.set(transactionId, nonceAccount);
      return { nonceAccount, nonceAuthority };
    },
    async release(transactionId) {
      held.delete(transactionId);
    },
    async noted(_account, hash) {
      noted.push(hash);
    },
  };
  return { lifetime: durableNonceLifetime(network, reservations), chain, held, noted, nonceAccount, nonceAuthority, hash1, hash2 };
}

describe('the durable-nonce lifetime', () => {
  it('takes the nonce value the chain holds now, keyed by the transaction record, and notes it', async () => {
    const s = await setup();
    const lifetime = await s.lifetime.acquire('tx-1');
    expect(lifetime).toEqual({ kind: 'DURABLE_NONCE', nonceAccount: s.nonceAccount, nonceAuthority: s.nonceAuthority, nonce: s.hash1, reservedBy: 'tx-1' });
    expect(s.held.get('tx-1')).toBe(s.nonceAccount);
    expect(s.noted).toEqual([s.hash1]);
  });

  it('puts advance-nonce first, signed by the authority, with the nonce as the lifetime', async () => {
    const s = await setup();
    const lifetime = await s.lifetime.acquire('tx-1');
    const message = s.lifetime.apply(
      pipe(createTransactionMessage({ version: 0 }), (m) => setTransactionMessageFeePayer(address(s.nonceAuthority), m)),
      lifetime,
    );
    expect(message.instructions[0].programAddress).toBe(SYSTEM_PROGRAM_ADDRESS);
    expect(message.instructions[0].accounts?.[0].address).toBe(s.nonceAccount);
    expect((message as unknown as { lifetimeConstraint: { nonce: string } }).lifetimeConstraint.nonce).toBe(s.hash1);
  });

  it('is over once the account holds another nonce (advanced by anyone), not before', async () => {
    const s = await setup();
    const lifetime = await s.lifetime.acquire('tx-1');
    expect(await s.lifetime.isOver(lifetime)).toBe(false);
    s.chain.nonce = s.hash2 as Address;
    expect(await s.lifetime.isOver(lifetime)).toBe(true);
  });

  it('releases what the transaction record reserved', async () => {
    const s = await setup();
    const lifetime = await s.lifetime.acquire('tx-1');
    await s.lifetime.release(lifetime);
    expect(s.held.has('tx-1')).toBe(false);
  });
});
