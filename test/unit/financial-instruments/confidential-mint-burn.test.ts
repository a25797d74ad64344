/** Confidential Mint and Burn: where the network's Token-2022 release initializes it, with supply keys derived from its authority's key. */
import { generateKeyPair, signBytes } from '@solana/kit';
import { AeCiphertext } from 'solana-zk-sdk/node';
import {
  checkConfidentialMintBurnRelease,
  checkSupplyKeyHolder,
  releaseVersion,
} from '../../../src/domain/operations/financial-instruments/create-financial-instrument.rules';
import { securityTxtRelease } from '../../../src/network/program-release';
import { confidentialSupplyKeys, supplySecretKeys } from '../../../src/custody/confidential-supply-keys';
import { refusal } from '../../support/expectations';

const MINT = 'So11111111111111111111111111111111111111112';

describe('the Token-2022 release of the network', () => {
  it("is the security.txt source_release embedded in the program's ELF", () => {
    const txt = ['name', 'SPL Token-2022', 'source_code', 'https://github.com/solana-program/token-2022', 'source_release', 'program@v11.0.0'];
    const elf = Buffer.concat([
      Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 0]),
      Buffer.from(`=======BEGIN SECURITY.TXT V1=======\0${txt.join('\0')}\0=======END SECURITY.TXT V1=======\0`),
    ]);
    expect(securityTxtRelease(elf)).toBe('program@v11.0.0');
    expect(securityTxtRelease(Buffer.from('no security.txt here'))).toBeUndefined();
    expect(releaseVersion('program@v11.0.0')).toEqual([11, 0, 0]);
    expect(releaseVersion('v8.1.2')).toEqual([8, 1, 2]);
    expect(releaseVersion(undefined)).toBeUndefined();
  });

  it('initializes Confidential Mint and Burn from 8.0.0 on; before it, or unknown, the refusal names the field and the release', () => {
    for (const release of ['program@v8.0.0', 'program@v11.0.0', 'v10.2.1']) expect(() => checkConfidentialMintBurnRelease(release)).not.toThrow();
    expect(refusal(() => checkConfidentialMintBurnRelease('program@v7.0.0'))).toMatchObject({
      code: 'VALIDATION_ERROR',
      field: 'itemData.confidentialMintBurnAuthority',
      message: "Confidential Mint and Burn needs the Token-2022 program 8.0.0 or later; this network's is program@v7.0.0",
    });
    expect(refusal(() => checkConfidentialMintBurnRelease(undefined)).message).toMatch(/unknown release/);
  });
});

describe('the supply keys', () => {
  it('need a key the service holds and may use', () => {
    expect(() => checkSupplyKeyHolder({ held: true })).not.toThrow();
    expect(refusal(() => checkSupplyKeyHolder({ held: false })).field).toBe('itemData.confidentialMintBurnAuthority');
    expect(refusal(() => checkSupplyKeyHolder({ held: true, autoSign: false })).message).toMatch(/autoSign: false/);
  });

  it("are the same for the same authority and mint, differ by mint, and encrypt a zero supply the authority's AES key reads", async () => {
    const { privateKey } = await generateKeyPair();
    const sign = (message: Uint8Array) => signBytes(privateKey, message);
    const first = await confidentialSupplyKeys(sign, MINT);
    const again = await confidentialSupplyKeys(sign, MINT);
    expect(again.supplyElgamalPubkey).toBe(first.supplyElgamalPubkey);
    expect(Buffer.from(first.decryptableSupply, 'base64')).toHaveLength(36);
    expect((await confidentialSupplyKeys(sign, '11111111111111111111111111111111')).supplyElgamalPubkey).not.toBe(first.supplyElgamalPubkey);
    const { aeKey } = await supplySecretKeys(sign, MINT);
    expect(AeCiphertext.fromBytes(Buffer.from(first.decryptableSupply, 'base64'))!.decrypt(aeKey)).toBe(0n);
  });
});
