/** RFC 9591 Appendix E.1 (FROST(Ed25519, SHA-512)): the library this service signs with reproduces the RFC's vectors. */
import { ed25519, ed25519_FROST } from '@noble/curves/ed25519.js';
import vectors from '../fixtures/rfc9591-frost-ed25519.json';

const bytes = (hex: string) => new Uint8Array(Buffer.from(hex, 'hex'));
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const { Fn } = ed25519_FROST.utils;
const point = (scalarHex: string) => ed25519.Point.BASE.multiply(Fn.fromBytes(bytes(scalarHex))).toBytes();
type Id = '1' | '2' | '3';

it('reproduces the RFC 9591 FROST(Ed25519, SHA-512) vectors: commitments, signature shares, the aggregate signature', () => {
  const { inputs } = vectors;
  const signers = { min: vectors.config.MIN_PARTICIPANTS, max: vectors.config.MAX_PARTICIPANTS };
  const id = (n: number) => ed25519_FROST.Identifier.fromNumber(n);
  const secret = (n: number) => ({ identifier: id(n), signingShare: bytes(inputs.participant_shares[String(n) as Id]) });
  const pub = {
    signers,
    commitments: [bytes(inputs.group_public_key), point(inputs.share_polynomial_coefficients[0]!)],
    verifyingShares: Object.fromEntries([1, 2, 3].map((n) => [id(n), point(inputs.participant_shares[String(n) as Id])])),
  };
  expect(hex(point(inputs.group_secret_key))).toBe(inputs.group_public_key);
  for (const n of [1, 2, 3]) ed25519_FROST.validateSecret(secret(n), pub);
  expect(hex(ed25519_FROST.combineSecret([secret(1), secret(3)], signers))).toBe(inputs.group_secret_key);

  const message = bytes(inputs.message);
  const round1 = inputs.participant_list.map((n) => {
    const out = vectors.round_one_outputs[String(n) as '1' | '3'];
    const randomness = [bytes(out.hiding_nonce_randomness), bytes(out.binding_nonce_randomness)];
    const generated = ed25519_FROST.commit(secret(n), () => randomness.shift()!);
    expect(hex(generated.commitments.hiding)).toBe(out.hiding_nonce_commitment);
    expect(hex(generated.commitments.binding)).toBe(out.binding_nonce_commitment);
    return { n, ...generated };
  });
  const commitmentList = round1.map((r) => r.commitments);
  const shares: Record<string, Uint8Array> = {};
  for (const r of round1) {
    const share = ed25519_FROST.signShare(secret(r.n), pub, r.nonces, commitmentList, message);
    expect(hex(share)).toBe(vectors.round_two_outputs[String(r.n) as '1' | '3']);
    shares[id(r.n)] = share;
  }
  const signature = ed25519_FROST.aggregate(pub, commitmentList, message, shares);
  expect(hex(signature)).toBe(vectors.final_output.sig);
  expect(ed25519.verify(signature, message, bytes(inputs.group_public_key))).toBe(true);
});
