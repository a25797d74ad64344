/**
 * Threshold keys (dkgKeys): generated dealerlessly among backend players, each player keeping its
 * share in its own store; the database keeps only the public package. Signing gathers `threshold`
 * players and yields one ordinary Ed25519 signature.
 */
import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { getAddressDecoder, getBase58Decoder, getBase58Encoder } from '@solana/kit';
import {
  insertThresholdKey,
  recordThresholdSignature,
  recordedThresholdSignature,
  thresholdKeyByRequest,
  thresholdKeys,
} from '../../db/repositories/threshold-keys.repository';
import { runDkg, thresholdSign, type PlayerShare, type ThresholdPublic } from './frost';
import type { ShareStore } from './share-store';

export interface ThresholdKeySpec {
  threshold: number;
  /** The players that take part; all configured players when absent. */
  playerCodes?: string[];
  keyUsage?: string;
  isDefault?: boolean;
}

export interface ThresholdKeys {
  playerCodes: string[];
  generate(em: EntityManager, organizationId: string, requestKey: string, spec: ThresholdKeySpec): Promise<string>;
  /** The addresses among these that are threshold keys. */
  held(em: EntityManager, addresses: string[]): Promise<Set<string>>;
  /** One Ed25519 signature (64 bytes) per threshold address over the message; a repeated call gives the recorded signature. */
  sign(em: EntityManager, addresses: string[], message: Uint8Array): Promise<Map<string, Uint8Array>>;
}

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const bytes = (h: string) => new Uint8Array(Buffer.from(h, 'hex'));
type StoredPublic = { signers: { min: number; max: number }; commitments: string[]; verifyingShares: Record<string, string> };
const storePublic = (p: ThresholdPublic): StoredPublic => ({
  signers: p.signers,
  commitments: p.commitments.map(hex),
  verifyingShares: Object.fromEntries(Object.entries(p.verifyingShares).map(([k, v]) => [k, hex(v)])),
});
const loadPublic = (p: StoredPublic): ThresholdPublic => ({
  signers: p.signers,
  commitments: p.commitments.map(bytes),
  verifyingShares: Object.fromEntries(Object.entries(p.verifyingShares).map(([k, v]) => [k, bytes(v)])),
});

export function createThresholdKeys(stores: ShareStore[]): ThresholdKeys {
  const byCode = new Map(stores.map((s) => [s.playerCode, s]));
  return {
    playerCodes: stores.map((s) => s.playerCode),
    async generate(em, organizationId, requestKey, spec) {
      const existing = await thresholdKeyByRequest(em, requestKey);
      if (existing) return existing.address;
      const codes = spec.playerCodes ?? stores.map((s) => s.playerCode);
      const unknown = codes.filter((c) => !byCode.has(c));
      if (unknown.length) throw new Error(`unknown backend players: ${unknown.join(', ')}`);
      const dkg = runDkg(codes, spec.threshold);
      const address = getAddressDecoder().decode(dkg.groupPublicKey);
      // Shares first: a key row without its shares could never sign; shares without a row are inert.
      for (const share of dkg.shares) byCode.get(share.playerCode)!.save(address, share);
      await insertThresholdKey(em, {
        address,
        organizationId,
        requestKey,
        threshold: spec.threshold,
        playerCodes: codes,
        keyUsage: spec.keyUsage ?? null,
        isDefault: spec.isDefault ?? false,
        publicPackage: storePublic(dkg.public),
      });
      return (await thresholdKeyByRequest(em, requestKey))!.address;
    },
    async held(em, addresses) {
      return new Set((await thresholdKeys(em, addresses)).map((k) => k.address));
    },
    async sign(em, addresses, message) {
      const messageHash = createHash('sha256').update(message).digest('hex');
      const result = new Map<string, Uint8Array>();
      for (const key of await thresholdKeys(em, addresses)) {
        const recorded = await recordedThresholdSignature(em, key.address, messageHash);
        if (recorded) {
          result.set(key.address, new Uint8Array(getBase58Encoder().encode(recorded)));
          continue;
        }
        const shares: PlayerShare[] = [];
        for (const code of key.playerCodes) {
          const share = byCode.get(code)?.load(key.address);
          if (share) shares.push({ playerCode: code, ...share });
          if (shares.length === key.threshold) break;
        }
        if (shares.length < key.threshold) throw new Error(`threshold key ${key.address} needs ${key.threshold} players, ${shares.length} available`);
        const signature = thresholdSign(loadPublic(key.publicPackage as StoredPublic), shares, message);
        const kept = await recordThresholdSignature(em, key.address, messageHash, getBase58Decoder().decode(signature));
        result.set(key.address, new Uint8Array(getBase58Encoder().encode(kept)));
      }
      return result;
    },
  };
}
