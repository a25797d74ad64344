import { ed25519 } from '@noble/curves/ed25519.js';
import { runDkg, thresholdSign } from '../../src/custody/threshold/frost';

describe('threshold Ed25519 (FROST)', () => {
  const message = new TextEncoder().encode('transfer 1 SOL');

  it('a dealerless 2-of-3 key signs with any two players; the signature is ordinary Ed25519 under the group key', () => {
    const dkg = runDkg(['p1', 'p2', 'p3'], 2);
    expect(dkg.groupPublicKey).toHaveLength(32);
    const [a, b, c] = dkg.shares;
    for (const pair of [
      [a!, b!],
      [b!, c!],
      [a!, c!],
    ]) {
      const signature = thresholdSign(dkg.public, pair, message);
      expect(signature).toHaveLength(64);
      expect(ed25519.verify(signature, message, dkg.groupPublicKey)).toBe(true);
      expect(ed25519.verify(signature, new TextEncoder().encode('transfer 2 SOL'), dkg.groupPublicKey)).toBe(false);
    }
  });

  it('one player alone cannot sign', () => {
    const dkg = runDkg(['p1', 'p2', 'p3'], 2);
    expect(() => thresholdSign(dkg.public, [dkg.shares[0]!], message)).toThrow('signing needs 2 players');
  });

  it('refuses a threshold below 2 or above the number of players', () => {
    expect(() => runDkg(['p1', 'p2', 'p3'], 4)).toThrow('threshold');
    expect(() => runDkg(['p1', 'p2', 'p3'], 1)).toThrow('threshold');
  });
});
