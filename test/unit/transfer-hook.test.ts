/**
 * Resolution of a transfer hook's extra accounts from hand-built validation account data (the
 * TLV ExtraAccountMetaList of spl-tlv-account-resolution), against an in-memory network.
 */
import { getAddressEncoder, getProgramDerivedAddress, type Address } from '@solana/kit';
import {
  EXECUTE_DISCRIMINATOR,
  TransferHookResolutionError,
  decodeExtraAccountMetaList,
  resolveTransferHookAccounts,
  toAccountMetas,
  transferHookValidationAddress,
  type TransferHookTransfer,
} from '../../src/network/transfer-hook';

const HOOK = 'HooKzFZkHbhDvYWSKGEyYvMNgTNXnNZwsoL8PhRqsWhW' as Address;
const MINT = '7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU' as Address;
const SOURCE = '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM' as Address;
const DESTINATION = 'DRpbCBMxVnDK7maPM5tGv6MvB3v1sRMC86PZ8okm21hy' as Address;
const OWNER = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v' as Address;
const LITERAL = 'So11111111111111111111111111111111111111112' as Address;
const TOKEN_2022 = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';
const AMOUNT = 1234n;

const transfer: TransferHookTransfer = { hookProgram: HOOK, mint: MINT, source: SOURCE, destination: DESTINATION, authority: OWNER, amount: AMOUNT };
const key = (a: string) => new Uint8Array(getAddressEncoder().encode(a as Address));

// --- hand-built ExtraAccountMeta entries: discriminator(1) addressConfig(32) isSigner(1) isWritable(1) ---
type Seed = number[];
const literalSeed = (bytes: Uint8Array | string): Seed => {
  const b = typeof bytes === 'string' ? Buffer.from(bytes) : bytes;
  return [1, b.length, ...b];
};
const instructionDataSeed = (index: number, length: number): Seed => [2, index, length];
const accountKeySeed = (index: number): Seed => [3, index];
const accountDataSeed = (accountIndex: number, dataIndex: number, length: number): Seed => [4, accountIndex, dataIndex, length];

function meta(discriminator: number, config: number[] | Uint8Array, isSigner: boolean, isWritable: boolean): Uint8Array {
  const entry = new Uint8Array(35);
  entry[0] = discriminator;
  if (config.length > 32) throw new Error('address config over 32 bytes');
  entry.set(config, 1);
  entry[33] = isSigner ? 1 : 0;
  entry[34] = isWritable ? 1 : 0;
  return entry;
}
const literalMeta = (a: string, isSigner = false, isWritable = false) => meta(0, key(a), isSigner, isWritable);
const programPdaMeta = (seeds: Seed[], isWritable = false) => meta(1, seeds.flat(), false, isWritable);
const accountPdaMeta = (accountIndex: number, seeds: Seed[]) => meta(128 + accountIndex, seeds.flat(), false, false);
const pubkeyFromAccountDataMeta = (accountIndex: number, dataIndex: number) => meta(2, [2, accountIndex, dataIndex], false, false);

function tlvEntry(discriminator: Uint8Array, value: Uint8Array): Uint8Array {
  const entry = new Uint8Array(12 + value.length);
  entry.set(discriminator, 0);
  new DataView(entry.buffer).setUint32(8, value.length, true);
  entry.set(value, 12);
  return entry;
}
function metaList(entries: Uint8Array[]): Uint8Array {
  const value = new Uint8Array(4 + entries.length * 35);
  new DataView(value.buffer).setUint32(0, entries.length, true);
  entries.forEach((e, i) => value.set(e, 4 + i * 35));
  return value;
}
const concat = (...parts: Uint8Array[]) => new Uint8Array(Buffer.concat(parts));
const validationData = (entries: Uint8Array[]) => tlvEntry(EXECUTE_DISCRIMINATOR, metaList(entries));

function fakeNetwork(accounts: Record<string, Uint8Array>) {
  const reads: string[] = [];
  return {
    reads,
    async getAccount(addr: string) {
      reads.push(addr);
      const data = accounts[addr];
      return data ? { owner: HOOK as string, lamports: 1_000_000n, data } : null;
    },
  };
}

const pda = async (program: string, seeds: Uint8Array[]) => (await getProgramDerivedAddress({ programAddress: program as Address, seeds }))[0];
const u64 = (n: bigint) => {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, n, true);
  return b;
};

let validation: string;
beforeAll(async () => {
  validation = await transferHookValidationAddress(HOOK, MINT);
});

describe('transfer hook extra accounts', () => {
  it('the validation account is the PDA ["extra-account-metas", mint] of the hook program', async () => {
    expect(validation).toBe(await pda(HOOK, [Buffer.from('extra-account-metas'), key(MINT)]));
  });

  it('without a validation account on chain, only the hook program is appended (Token-2022 then calls Execute with the four base accounts)', async () => {
    const network = fakeNetwork({});
    expect(await resolveTransferHookAccounts(network, transfer)).toEqual([{ address: HOOK, role: 'readonly' }]);
    expect(network.reads).toEqual([validation]);
    // A funded but uninitialized address reads the same: passing it would fail on chain.
    expect(await resolveTransferHookAccounts(fakeNetwork({ [validation]: new Uint8Array(0) }), transfer)).toEqual([{ address: HOOK, role: 'readonly' }]);
  });

  it('an empty list appends the program and the validation account', async () => {
    const accounts = await resolveTransferHookAccounts(fakeNetwork({ [validation]: validationData([]) }), transfer);
    expect(accounts).toEqual([
      { address: HOOK, role: 'readonly' },
      { address: validation, role: 'readonly' },
    ]);
  });

  it('resolves fixed addresses and PDAs from literal, account-key, instruction-data and account-data seeds, in list order, then the program and the validation account', async () => {
    const sourceData = new Uint8Array(165).map((_, i) => i);
    const holder = 'Stake11111111111111111111111111111111111111' as Address;
    const holderData = concat(new Uint8Array(10), key(LITERAL));
    const data = validationData([
      literalMeta(holder, false, false), // 5
      programPdaMeta([literalSeed('counter'), accountKeySeed(0), accountKeySeed(2)], true), // 6: ["counter", source, destination] of the hook
      programPdaMeta([instructionDataSeed(8, 8), accountKeySeed(4)]), // 7: [amount, validation]
      accountPdaMeta(5, [accountKeySeed(1)]), // 8: [mint] of account 5
      programPdaMeta([accountDataSeed(0, 64, 32)]), // 9: [source data 64..96]
      pubkeyFromAccountDataMeta(5, 10), // 10: the address in account 5's data at 10
    ]);
    const network = fakeNetwork({ [validation]: data, [SOURCE]: sourceData, [holder]: holderData });
    const accounts = await resolveTransferHookAccounts(network, transfer);
    const counter = await pda(HOOK, [Buffer.from('counter'), key(SOURCE), key(DESTINATION)]);
    expect(accounts).toEqual([
      { address: holder, role: 'readonly' },
      { address: counter, role: 'writable' },
      { address: await pda(HOOK, [u64(AMOUNT), key(validation)]), role: 'readonly' },
      { address: await pda(holder, [key(MINT)]), role: 'readonly' },
      { address: await pda(HOOK, [sourceData.subarray(64, 96)]), role: 'readonly' },
      { address: LITERAL, role: 'readonly' },
      { address: HOOK, role: 'readonly' },
      { address: validation, role: 'readonly' },
    ]);
    expect(toAccountMetas(accounts).map((m) => m.role)).toEqual([0, 1, 0, 0, 0, 0, 0, 0]);
  });

  it('an extra that is one of the base accounts gets no privilege beyond them (read-only, no signature), as on chain; a foreign signer keeps its role', async () => {
    const data = validationData([literalMeta(SOURCE, false, true), literalMeta(OWNER, true, false), literalMeta(LITERAL, true, true)]);
    const accounts = await resolveTransferHookAccounts(fakeNetwork({ [validation]: data }), transfer);
    expect(accounts.slice(0, 3)).toEqual([
      { address: SOURCE, role: 'readonly' },
      { address: OWNER, role: 'readonly' },
      { address: LITERAL, role: 'writable_signer' },
    ]);
  });

  it('finds the Execute entry after other TLV entries', async () => {
    const other = tlvEntry(new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8]), new Uint8Array([9, 9, 9]));
    const data = concat(other, validationData([literalMeta(LITERAL)]));
    expect(decodeExtraAccountMetaList(data)).toEqual([{ config: { __kind: 'Literal', address: LITERAL }, isSigner: false, isWritable: false }]);
    expect((await resolveTransferHookAccounts(fakeNetwork({ [validation]: concat(data, new Uint8Array(16)) }), transfer))[0]).toEqual({
      address: LITERAL,
      role: 'readonly',
    });
  });

  it('refuses validation data it cannot use, naming the problem', async () => {
    const refusal = (data: Uint8Array) => resolveTransferHookAccounts(fakeNetwork({ [validation]: data }), transfer);
    await expect(refusal(new Uint8Array(64))).rejects.toThrow(
      new TransferHookResolutionError(`transfer hook validation account ${validation} holds no ExtraAccountMetaList for Execute`),
    );
    await expect(refusal(tlvEntry(new Uint8Array(8).fill(7), new Uint8Array(4)))).rejects.toThrow(/holds no ExtraAccountMetaList for Execute/);
    // Declares two entries, holds one.
    const short = tlvEntry(EXECUTE_DISCRIMINATOR, concat(new Uint8Array([2, 0, 0, 0]), literalMeta(LITERAL)));
    await expect(refusal(short)).rejects.toThrow(/unreadable ExtraAccountMetaList: the list declares 2 entries in 39 bytes/);
    await expect(refusal(validationData([literalMeta(LITERAL)]).subarray(0, 30))).rejects.toThrow(/truncated/);
    // Seed kind 9 does not exist; address config discriminator 5 neither.
    await expect(refusal(validationData([programPdaMeta([[9, 1]])]))).rejects.toThrow(
      /unreadable ExtraAccountMetaList: Invalid transfer hook seed: unknown discriminator 9/,
    );
    await expect(refusal(validationData([meta(5, [], false, false)]))).rejects.toThrow(/unknown discriminator 5/);
  });

  it('refuses extras that cannot be resolved, naming the extra', async () => {
    const refusal = (data: Uint8Array, accounts: Record<string, Uint8Array> = {}) =>
      resolveTransferHookAccounts(fakeNetwork({ [validation]: data, ...accounts }), transfer);
    // Account 6 does not exist yet when extra 0 (account 5) is resolved.
    await expect(refusal(validationData([programPdaMeta([accountKeySeed(6)])]))).rejects.toThrow(
      `transfer hook extra account 0 of ${validation} cannot be resolved: Invalid transfer hook seed: account-key seed references an out-of-bounds account index.`,
    );
    await expect(refusal(validationData([literalMeta(LITERAL), programPdaMeta([accountDataSeed(0, 0, 8)])]))).rejects.toThrow(
      /extra account 1 .* account .* required by an account-data seed was not found/,
    );
    await expect(refusal(validationData([programPdaMeta([accountDataSeed(0, 160, 8)])]), { [SOURCE]: new Uint8Array(165) })).rejects.toThrow(
      /account data is shorter/,
    );
    await expect(refusal(validationData([programPdaMeta([instructionDataSeed(8, 9)])]))).rejects.toThrow(/instruction data is shorter/);
  });

  it('lets network faults through as they are, so the caller retries', async () => {
    const fault = new Error('connect ECONNREFUSED');
    const data = validationData([programPdaMeta([accountDataSeed(0, 0, 8)])]);
    const network = {
      async getAccount(addr: string) {
        if (addr === validation) return { owner: HOOK as string, lamports: 1n, data };
        throw fault;
      },
    };
    await expect(resolveTransferHookAccounts(network, transfer)).rejects.toBe(fault);
    await expect(resolveTransferHookAccounts({ getAccount: () => Promise.reject(fault) }, transfer)).rejects.toBe(fault);
  });

  it('toAccountMetas gives kit account roles', () => {
    expect(
      toAccountMetas([
        { address: TOKEN_2022, role: 'readonly' },
        { address: TOKEN_2022, role: 'writable' },
        { address: TOKEN_2022, role: 'readonly_signer' },
        { address: TOKEN_2022, role: 'writable_signer' },
      ]).map((m) => m.role),
    ).toEqual([0, 1, 2, 3]);
  });
});
