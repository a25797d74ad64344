/**
 * The instructions of a planned movement leg (spec 4.3): [create destination] → thaw → the movement →
 * freeze → memo. Pure: everything comes from the leg the lookup planned.
 */
import { getAddMemoInstruction } from '@solana-program/memo';
import {
  getBurnCheckedInstruction,
  getCreateAssociatedTokenIdempotentInstruction,
  getFreezeAccountInstruction,
  getMintToCheckedInstruction,
  getThawAccountInstruction,
  getTransferCheckedInstruction,
  TOKEN_2022_PROGRAM_ADDRESS,
} from '@solana-program/token-2022';
import { AccountRole, address, createNoopSigner, type AccountMeta, type Address, type Instruction } from '@solana/kit';
import type { AroundMovement, Leg, TransferHookAccountMeta, TransferHookAccountRole } from './movement.rules';

/** The memo program every public cluster has (v3; the client's default v4 is not deployed everywhere). */
export const MEMO_PROGRAM_V3 = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr';

const kitRoles: Record<TransferHookAccountRole, AccountRole> = {
  readonly: AccountRole.READONLY,
  writable: AccountRole.WRITABLE,
  readonly_signer: AccountRole.READONLY_SIGNER,
  writable_signer: AccountRole.WRITABLE_SIGNER,
};

/** The metas to append, in kit's form: `{ ...transfer, accounts: [...transfer.accounts, ...toAccountMetas(metas)] }`. */
export function toAccountMetas(metas: readonly TransferHookAccountMeta[]): AccountMeta<Address>[] {
  return metas.map((meta) => ({ address: address(meta.address), role: kitRoles[meta.role] }));
}

/** Thaw → the movement → freeze → memo, in one transaction. */
export function aroundMovement(
  around: AroundMovement,
  movement: (config: { programAddress: typeof TOKEN_2022_PROGRAM_ADDRESS }) => Instruction,
): Instruction[] {
  const config = { programAddress: address(around.tokenProgram) as typeof TOKEN_2022_PROGRAM_ADDRESS };
  const mint = address(around.mint);
  const owner = () => createNoopSigner(address(around.freezeAuthority!));
  return [
    ...around.thaw.map((account) => getThawAccountInstruction({ account: address(account), mint, owner: owner() }, config)),
    movement(config),
    ...around.freeze.map((account) => getFreezeAccountInstruction({ account: address(account), mint, owner: owner() }, config)),
    ...(around.memo ? [getAddMemoInstruction({ memo: around.memo }, { programAddress: address(MEMO_PROGRAM_V3) as never })] : []),
  ];
}

/** The instructions of one leg: [create destination] → thaw → the movement → freeze → memo. */
export function legInstructions(leg: Leg, feePayer: string): Instruction[] {
  const amount = BigInt(leg.amount);
  const common = { mint: address(leg.mint), amount, decimals: leg.decimals };
  switch (leg.kind) {
    case 'mint':
      return aroundMovement(leg, (config) =>
        getMintToCheckedInstruction({ ...common, token: address(leg.position), mintAuthority: createNoopSigner(address(leg.mintAuthority)) }, config),
      );
    case 'burn':
      return aroundMovement(leg, (config) =>
        getBurnCheckedInstruction({ ...common, account: address(leg.position), authority: createNoopSigner(address(leg.authority)) }, config),
      );
    case 'transfer': {
      const create = leg.createDestination
        ? [
            getCreateAssociatedTokenIdempotentInstruction({
              payer: createNoopSigner(address(feePayer)),
              ata: address(leg.destination),
              owner: address(leg.createDestination.owner),
              mint: address(leg.mint),
              tokenProgram: address(leg.tokenProgram),
            }),
          ]
        : [];
      return [
        ...create,
        ...aroundMovement(leg, (config) => {
          const transfer = getTransferCheckedInstruction(
            { ...common, source: address(leg.source), destination: address(leg.destination), authority: createNoopSigner(address(leg.authority)) },
            config,
          );
          if (leg.extraAccounts.length === 0) return transfer;
          return { ...transfer, accounts: [...transfer.accounts, ...toAccountMetas(leg.extraAccounts)] };
        }),
      ];
    }
  }
}
