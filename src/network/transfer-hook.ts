/**
 * The accounts a TransferChecked of a transfer-hook mint must carry after its own: Token-2022
 * CPIs into the hook program's `Execute` with source, mint, destination, authority, the
 * validation account (PDA ["extra-account-metas", mint] under the hook program) and the extra
 * accounts listed there, and every one of them must be in the transaction.
 *
 * What Token-2022 does (spl-transfer-hook-interface `onchain::invoke_execute`, as built into
 * LiteSVM 1.5): it looks the hook program and the validation account up by address among the
 * accounts after the transfer's own, in any order. Without the program the transfer fails
 * (MissingAccount). When the validation account is passed it must hold an ExtraAccountMetaList
 * for Execute (a missing or empty one fails with InvalidAccountData) and every extra it lists
 * must be passed as well (IncorrectAccount); when it is not passed, the hook gets the four base
 * accounts only. So: no validation account on chain → the program alone; otherwise the resolved
 * extras, the program and the validation account — the order of @solana-program/token-2022's
 * `resolveExtraAccountMetasForExecute` and the legacy client's `addExtraAccountMetasForExecute`.
 *
 * Extras are resolved with the Token-2022 client's own decoder and resolver (literal addresses,
 * PDAs of the hook or of an earlier account from literal, instruction-data, account-key and
 * account-data seeds, and addresses read from instruction or account data), and de-escalated as
 * on chain: an extra that is one of the base accounts gets no more privilege than they have in
 * Execute (read-only, no signature).
 */
import { AccountRole, address, getArrayDecoder, getU32Decoder, type AccountMeta, type Address, type GetAccountInfoApi, type Rpc } from '@solana/kit';
import {
  deEscalateAccountMeta,
  findExtraAccountMetaListPda,
  getExtraAccountMetaDecoder,
  resolveExtraAccountMeta,
  type ExtraAccountMeta,
} from '@solana-program/token-2022';
import type { SvmNetwork } from './svm-network';

import type { TransferHookAccountMeta, TransferHookAccountRole } from '../domain/operations/positions/movement.rules';

// The metas' JSON-safe form and its kit form live with the leg rules that carry them.
export type { TransferHookAccountMeta, TransferHookAccountRole } from '../domain/operations/positions/movement.rules';
export { toAccountMetas } from '../domain/operations/positions/movement-instructions';

export interface TransferHookTransfer {
  /** The mint's TransferHook program id. */
  hookProgram: string;
  mint: string;
  /** Source and destination token accounts. */
  source: string;
  destination: string;
  /** The transfer's authority: the source's owner (or delegate). */
  authority: string;
  amount: bigint;
}

/** The validation account cannot be read as a list of extra accounts, or an extra cannot be resolved. */
export class TransferHookResolutionError extends Error {
  override readonly name = 'TransferHookResolutionError';
}

/** First 8 bytes of sha256("spl-transfer-hook-interface:execute"). */
export const EXECUTE_DISCRIMINATOR = new Uint8Array([105, 37, 101, 197, 75, 251, 102, 26]);
const TLV_HEADER_BYTES = 8 + 4;

const roleNames: Record<AccountRole, TransferHookAccountRole> = {
  [AccountRole.READONLY]: 'readonly',
  [AccountRole.WRITABLE]: 'writable',
  [AccountRole.READONLY_SIGNER]: 'readonly_signer',
  [AccountRole.WRITABLE_SIGNER]: 'writable_signer',
};

/** The transfer hook's validation account: PDA ["extra-account-metas", mint] of the hook program. */
export async function transferHookValidationAddress(hookProgram: string, mint: string): Promise<string> {
  const [pda] = await findExtraAccountMetaListPda({ mint: address(mint) }, { programAddress: address(hookProgram) });
  return pda;
}

/**
 * The Execute entry of a validation account's TLV data: the list of extra accounts, or null when
 * the data holds no Execute entry (the TLV walk stops at an all-zero discriminator, as on chain).
 */
export function decodeExtraAccountMetaList(data: Uint8Array): ExtraAccountMeta[] | null {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  for (let offset = 0; offset + TLV_HEADER_BYTES <= data.length;) {
    const discriminator = data.subarray(offset, offset + 8);
    if (discriminator.every((b) => b === 0)) return null;
    const length = view.getUint32(offset + 8, true);
    const start = offset + TLV_HEADER_BYTES;
    if (start + length > data.length)
      throw new TransferHookResolutionError(
        `validation account data is truncated: an entry of ${length} bytes at offset ${offset} passes its end (${data.length} bytes)`,
      );
    if (discriminator.every((b, i) => b === EXECUTE_DISCRIMINATOR[i])) {
      const value = data.subarray(start, start + length);
      try {
        const count = value.length >= 4 ? view.getUint32(start, true) : -1;
        if (count < 0 || 4 + count * 35 > value.length) throw new Error(`the list declares ${count} entries in ${value.length} bytes`);
        return getArrayDecoder(getExtraAccountMetaDecoder(), { size: getU32Decoder() }).decode(value);
      } catch (error) {
        throw new TransferHookResolutionError(`validation account holds an unreadable ExtraAccountMetaList: ${(error as Error).message}`);
      }
    }
    offset = start + length;
  }
  return null;
}

/** A network fault met inside the Token-2022 client's resolver: rethrown as it is, not as a resolution error. */
class NetworkFault {
  constructor(readonly cause: unknown) {}
}

/** The service's network seen as the one RPC method the Token-2022 client's resolver calls (account-data seeds). */
function accountInfoRpc(network: Pick<SvmNetwork, 'getAccount'>): Rpc<GetAccountInfoApi> {
  const getAccountInfo = (addr: Address) => ({
    send: async () => {
      const account = await network.getAccount(addr).catch((error: unknown) => {
        throw new NetworkFault(error);
      });
      return {
        context: { slot: 0n },
        value: account && {
          data: [Buffer.from(account.data).toString('base64'), 'base64'],
          executable: false,
          lamports: account.lamports,
          owner: account.owner,
          rentEpoch: 0n,
          space: BigInt(account.data.length),
        },
      };
    },
  });
  // The resolver calls only getAccountInfo: an Rpc of that one method, typed as kit's whole Rpc.
  return { getAccountInfo } as unknown as Rpc<GetAccountInfoApi>;
}

function executeInstructionData(amount: bigint): Uint8Array {
  const data = new Uint8Array(16);
  data.set(EXECUTE_DISCRIMINATOR, 0);
  new DataView(data.buffer).setBigUint64(8, amount, true);
  return data;
}

/**
 * The accounts to append to the TransferChecked of a transfer-hook mint, in order: the resolved
 * extras, the hook program, the validation account; the hook program alone when the mint has no
 * validation account. Network faults propagate as they are (retryable); a validation account that
 * cannot be used throws TransferHookResolutionError.
 *
 * An extra that must sign (after de-escalation) is returned as `*_signer`: the transaction then
 * needs that account's signature, which the caller must be able to provide or refuse.
 */
export async function resolveTransferHookAccounts(network: Pick<SvmNetwork, 'getAccount'>, transfer: TransferHookTransfer): Promise<TransferHookAccountMeta[]> {
  const hookProgram = address(transfer.hookProgram);
  const validation = address(await transferHookValidationAddress(hookProgram, transfer.mint));
  const program: TransferHookAccountMeta = { address: hookProgram, role: 'readonly' };
  const account = await network.getAccount(validation);
  // Also a funded but never initialized address: passing it would fail (no Execute entry), leaving it out does not.
  if (!account || account.data.length === 0) return [program];

  const extras = decodeExtraAccountMetaList(account.data);
  if (!extras) throw new TransferHookResolutionError(`transfer hook validation account ${validation} holds no ExtraAccountMetaList for Execute`);

  const rpc = accountInfoRpc(network);
  const data = executeInstructionData(transfer.amount);
  // Execute's accounts, to which seeds and account indexes refer: source, mint, destination, authority, validation, then each resolved extra.
  const executeMetas: AccountMeta<Address>[] = [transfer.source, transfer.mint, transfer.destination, transfer.authority, validation].map((a) => ({
    address: address(a),
    role: AccountRole.READONLY,
  }));
  const resolved: TransferHookAccountMeta[] = [];
  for (const [index, extra] of extras.entries()) {
    let meta: AccountMeta<Address>;
    try {
      const found = await resolveExtraAccountMeta(
        extra,
        executeMetas.map((m) => m.address),
        data,
        hookProgram,
        rpc,
      );
      const role = found.isSigner
        ? found.isWritable
          ? AccountRole.WRITABLE_SIGNER
          : AccountRole.READONLY_SIGNER
        : found.isWritable
          ? AccountRole.WRITABLE
          : AccountRole.READONLY;
      meta = deEscalateAccountMeta({ address: found.address, role }, executeMetas);
    } catch (error) {
      if (error instanceof NetworkFault) throw error.cause;
      throw new TransferHookResolutionError(`transfer hook extra account ${index} of ${validation} cannot be resolved: ${(error as Error).message}`);
    }
    executeMetas.push(meta);
    resolved.push({ address: meta.address, role: roleNames[meta.role] });
  }
  return [...resolved, program, { address: validation, role: 'readonly' }];
}
