/** The checks a signature supplied through Sign Transaction passes before the write keeps it, and how a partly signed message is read. */
import { generateKeyPair, getAddressFromPublicKey, getBase58Decoder, getBase58Encoder, signBytes, type Transaction } from '@solana/kit';
import { signatureMap, verifiedSignature } from '../../src/activities/pipeline/signatures';
import { LedgerError } from '../../src/domain/errors';

const base58 = getBase58Decoder();
const message = new TextEncoder().encode('a message the transaction carries');

async function signer() {
  const keys = await generateKeyPair();
  return { address: await getAddressFromPublicKey(keys.publicKey), sign: async (bytes: Uint8Array) => base58.decode(await signBytes(keys.privateKey, bytes)) };
}

async function refusal(promise: Promise<unknown>): Promise<LedgerError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof LedgerError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('verifiedSignature', () => {
  it("keeps the signer's own ed25519 signature of the message", async () => {
    const source = await signer();
    const transaction = { messageBytes: message, signatures: { [source.address]: null } } as unknown as Transaction;
    const bytes = await verifiedSignature(transaction, source.address, await source.sign(message), 'itemData.signatures[0]');
    expect(bytes).toHaveLength(64);
  });

  it('refuses a signature by another key, or of another message, naming the signature', async () => {
    const [source, stranger] = [await signer(), await signer()];
    const transaction = { messageBytes: message, signatures: { [source.address]: null } } as unknown as Transaction;
    for (const wrong of [await stranger.sign(message), await source.sign(new TextEncoder().encode('another message'))]) {
      const error = await refusal(verifiedSignature(transaction, source.address, wrong, 'itemData.signatures[1]'));
      expect(error).toMatchObject({ code: 'VALIDATION_ERROR', field: 'itemData.signatures[1].signature' });
    }
  });

  it('refuses a signer the message does not need, and a signature that is not 64 base58 bytes', async () => {
    const [source, stranger] = [await signer(), await signer()];
    const transaction = { messageBytes: message, signatures: { [source.address]: null } } as unknown as Transaction;
    expect(await refusal(verifiedSignature(transaction, stranger.address, await stranger.sign(message), 'itemData.signatures[0]'))).toMatchObject({
      field: 'itemData.signatures[0].signer',
    });
    expect(await refusal(verifiedSignature(transaction, source.address, '0OIl', 'itemData.signatures[0]'))).toMatchObject({
      field: 'itemData.signatures[0].signature',
    });
    expect(await refusal(verifiedSignature(transaction, source.address, '3yZe7d', 'itemData.signatures[0]'))).toMatchObject({
      field: 'itemData.signatures[0].signature',
    });
  });
});

describe('signatureMap', () => {
  it('keeps each signer with its base58 signature, null where one is missing', async () => {
    const [payer, source] = [await signer(), await signer()];
    const signature = await payer.sign(message);
    const transaction = {
      messageBytes: message,
      signatures: { [payer.address]: getBase58Encoder().encode(signature), [source.address]: null },
    } as unknown as Transaction;
    expect(signatureMap(transaction)).toEqual({ [payer.address]: signature, [source.address]: null });
  });
});
