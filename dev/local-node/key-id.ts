/**
 * A cheap string identity for 32-byte keys, for Map/Set lookups on hot paths
 * (base58 would cost microseconds per key; this is a native latin1 view).
 */
export function keyId(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
}

export function keyFromId(id: string): Uint8Array {
  return new Uint8Array(Buffer.from(id, 'latin1'));
}
