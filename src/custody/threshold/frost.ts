/**
 * Threshold Ed25519 (FROST, RFC 9591, ciphersuite FROST(Ed25519, SHA-512)) over @noble/curves.
 * Each player only ever holds its own share; players talk through the public protocol messages
 * below. No function here combines shares into the group secret.
 */
import { ed25519_FROST } from '@noble/curves/ed25519.js';

export interface PlayerShare {
  playerCode: string;
  identifier: string;
  /** The player's signing share (a scalar); only its own store holds it. */
  signingShare: Uint8Array;
}

/** The public package of a threshold key: threshold, commitments (commitments[0] is the group key), verifying shares. */
export type ThresholdPublic = ReturnType<typeof ed25519_FROST.trustedDealer>['public'];

export interface DkgResult {
  groupPublicKey: Uint8Array;
  public: ThresholdPublic;
  shares: PlayerShare[];
}

export const identifierOf = (playerCode: string) => ed25519_FROST.Identifier.derive(playerCode);

/**
 * Dealerless key generation (the frost-rs three-round DKG): every player draws its own polynomial,
 * broadcasts commitments with a proof of knowledge, sends one share to each other player, and sums
 * what it received. The group secret is never formed.
 */
export function runDkg(playerCodes: string[], threshold: number): DkgResult {
  if (new Set(playerCodes).size !== playerCodes.length) throw new Error('player codes must be distinct');
  if (threshold < 2 || threshold > playerCodes.length) throw new Error(`threshold must be between 2 and ${playerCodes.length}`);
  const signers = { min: threshold, max: playerCodes.length };
  const players = playerCodes.map((code) => ({ code, id: identifierOf(code), ...ed25519_FROST.DKG.round1(identifierOf(code), signers) }));
  const broadcasts = players.map((p) => p.public);
  const sent = players.map((p) =>
    ed25519_FROST.DKG.round2(
      p.secret,
      broadcasts.filter((b) => b.identifier !== p.id),
    ),
  );
  const keys = players.map((p) => {
    const received = sent.flatMap((messages, from) => (players[from]!.id === p.id ? [] : [messages[p.id]!]));
    const key = ed25519_FROST.DKG.round3(
      p.secret,
      broadcasts.filter((b) => b.identifier !== p.id),
      received,
    );
    ed25519_FROST.DKG.clean(p.secret);
    return { code: p.code, key };
  });
  const pub = keys[0]!.key.public;
  const group = pub.commitments[0]!;
  for (const { key } of keys) {
    if (Buffer.compare(Buffer.from(key.public.commitments[0]!), Buffer.from(group)) !== 0) throw new Error('players disagree on the group key');
    ed25519_FROST.validateSecret(key.secret, pub);
  }
  return {
    groupPublicKey: group,
    public: pub,
    shares: keys.map(({ code, key }) => ({ playerCode: code, identifier: key.secret.identifier, signingShare: key.secret.signingShare })),
  };
}

/**
 * Two-round signing by `threshold` players: each commits fresh nonces, then signs its share; the
 * coordinator checks every share (RFC 9591 5.4) and aggregates one ordinary Ed25519 signature.
 */
export function thresholdSign(pub: ThresholdPublic, shares: PlayerShare[], message: Uint8Array): Uint8Array {
  if (shares.length < pub.signers.min) throw new Error(`signing needs ${pub.signers.min} players, ${shares.length} available`);
  const signing = shares.slice(0, pub.signers.min).map((s) => ({
    secret: { identifier: s.identifier, signingShare: s.signingShare },
    ...ed25519_FROST.commit({ identifier: s.identifier, signingShare: s.signingShare }),
  }));
  const commitmentList = signing.map((s) => s.commitments);
  const sigShares: Record<string, Uint8Array> = {};
  for (const s of signing) {
    const share = ed25519_FROST.signShare(s.secret, pub, s.nonces, commitmentList, message);
    if (!ed25519_FROST.verifyShare(pub, commitmentList, message, s.secret.identifier, share))
      throw new Error(`player ${s.secret.identifier} gave an invalid signature share`);
    sigShares[s.secret.identifier] = share;
  }
  return ed25519_FROST.aggregate(pub, commitmentList, message, sigShares);
}
