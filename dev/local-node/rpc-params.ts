/** Reading positional JSON-RPC params with Solana's defaults and error messages. */
import { decodeBase58Exact } from './base58';
import type { Chain, Commitment } from './chain';
import { invalidParams, MIN_CONTEXT_SLOT_NOT_REACHED, RpcError } from './rpc-errors';

export type Config = Record<string, unknown>;

export function readConfig(value: unknown): Config {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw invalidParams('Invalid params: invalid type: expected a config object.');
  return value as Config;
}

const COMMITMENT_ALIASES: Record<string, Commitment> = {
  processed: 'processed',
  recent: 'processed',
  confirmed: 'confirmed',
  single: 'confirmed',
  singleGossip: 'confirmed',
  finalized: 'finalized',
  root: 'finalized',
  max: 'finalized',
};

/** A missing commitment means `finalized`, as on a cluster. */
export function readCommitment(config: Config): Commitment {
  const value = config.commitment;
  if (value === undefined || value === null) return 'finalized';
  const commitment = typeof value === 'string' ? COMMITMENT_ALIASES[value] : undefined;
  if (!commitment) throw invalidParams(`Invalid params: unknown variant \`${String(value)}\`, expected one of \`processed\`, \`confirmed\`, \`finalized\`.`);
  return commitment;
}

/** The slot a read at this commitment reflects; refuses when `minContextSlot` is still ahead. */
export function contextSlot(chain: Chain, config: Config, commitment = readCommitment(config)): number {
  const slot = chain.slotAt(commitment);
  const minimum = config.minContextSlot;
  if (minimum !== undefined && minimum !== null) {
    const wanted = readUnsigned(minimum, 'minContextSlot');
    if (BigInt(slot) < wanted) throw new RpcError(MIN_CONTEXT_SLOT_NOT_REACHED, 'Minimum context slot has not been reached', { contextSlot: slot });
  }
  return slot;
}

export function readUnsigned(value: unknown, name: string): bigint {
  if (typeof value === 'bigint' && value >= 0n) return value;
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return BigInt(value);
  throw invalidParams(`Invalid params: invalid type for ${name}: expected an unsigned integer.`);
}

export function readString(value: unknown, name: string): string {
  if (typeof value !== 'string') throw invalidParams(`Invalid params: invalid type for ${name}: expected a string.`);
  return value;
}

export function readBoolean(value: unknown, name: string, fallback: boolean): boolean {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'boolean') throw invalidParams(`Invalid params: invalid type for ${name}: expected a boolean.`);
  return value;
}

export function readAddress(value: unknown): Uint8Array {
  const key = typeof value === 'string' ? decodeBase58Exact(value, 32) : null;
  if (!key) throw invalidParams('Invalid param: Invalid');
  return key;
}

export function readSignature(value: unknown): Uint8Array {
  const signature = typeof value === 'string' ? decodeBase58Exact(value, 64) : null;
  if (!signature) throw invalidParams('Invalid param: Invalid');
  return signature;
}

export function readArray(value: unknown, name: string, maxLength: number): unknown[] {
  if (!Array.isArray(value)) throw invalidParams(`Invalid params: invalid type for ${name}: expected an array.`);
  if (value.length > maxLength) throw invalidParams(`Too many inputs provided; max ${maxLength}`);
  return value;
}
