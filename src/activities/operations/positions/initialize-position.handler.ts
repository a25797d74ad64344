/**
 * Initialize Position: the owner's associated token account for an instrument, created idempotently
 * by the fee payer; or, with `position`, an explicit account the caller pre-created with Create
 * Account (a managed, system-owned account) turned into a token account in place. Thawed in the same
 * transaction when the instrument freezes new positions and `unfreeze` is set. An inactive position
 * of the same account is re-initialized (same record).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { getAllocateInstruction, getAssignInstruction, getTransferSolInstruction } from '@solana-program/system';
import {
  AccountState,
  TOKEN_2022_PROGRAM_ADDRESS,
  findAssociatedTokenPda,
  getTokenDecoder,
  getCreateAssociatedTokenIdempotentInstruction,
  getInitializeAccount3Instruction,
  getThawAccountInstruction,
} from '@solana-program/token-2022';
import { address, createNoopSigner, type Instruction } from '@solana/kit';
import type { InitializePositionItemData } from '../../../domain/operations/positions/position.inputs';
import { Account, FinancialInstrument, Position } from '../../../db/entities';
import { insertPosition } from '../../../db/repositories/positions.repository';
import { assertMaySign, findAccountByLookup, markTokenAccount, offPlatformAddress } from '../../../db/repositories/accounts.repository';
import { checkPositionLookupAuthorities, findInstrumentByLookup } from '../../../db/repositories/financial-instruments.repository';
import { positionAccountSize } from '../../../domain/position-account';
import {
  checkExplicitAccount,
  checkNotActive,
  explicitAccountPreparation,
  positionToInitialize,
  requireThawAuthority,
} from '../../../domain/operations/positions/initialize-position.rules';
import { checkInstrumentActive, checkOwnerActive } from '../../../domain/operations/positions/position.rules';
import { linkRecords } from '../../../db/repositories/transaction-records.repository';
import type { ActivityDeps } from '../../deps';
import { paidBy, resolveFeePayer } from '../fee-payer';
import { landed, scopeOf, type OperationHandler, type OperationRequest } from '../operation-handler';
import { tokenProgramOf } from './token-movement';

/** An explicit position: the pre-created account made a token account in this transaction. */
interface ExplicitAccount {
  accountId: string;
  /** Lamports the fee payer adds so the account is rent-exempt at its token account size (decimal string). */
  topUp: string;
  size: number;
  /** false: it was pre-created with exactly `size` bytes, so only assigned. */
  allocate: boolean;
  /** The account record's type from now on: a token account, no longer a wallet. */
  type: 'FUNDS_TOKEN_ACCOUNT' | 'ASSET_TOKEN_ACCOUNT';
}

/** What Initialize Position's lookup resolves (JSON-safe: kept in history and in the record). */
export interface InitializePositionData {
  positionId: string;
  existingPositionId: string | null;
  address: string;
  owner: string;
  ownerAccountId: string | null;
  instrumentId: string;
  mint: string;
  decimals: number;
  version: string;
  tokenProgram: string;
  /** The freeze authority that thaws a position frozen by default, when `unfreeze` asks for it. */
  thawWith: string | null;
  frozen: boolean;
  explicit: ExplicitAccount | null;
  /**
   * Base units the associated account already held onchain at lookup (decimal string): tokens sent
   * to it before the service knew the position (by another tenant or a wallet). Absent in histories
   * recorded before it was read: 0.
   */
  balance?: string;
}

/**
 * Checks that the account `position` names can become this instrument's token account: onboarded,
 * managed and signable by this organization (it signs its own allocation and assignment), not the
 * owner itself, not a fee payer, and onchain a funded System Program account holding no data (or
 * exactly the token account's size). VALIDATION_ERROR, NOT_FOUND or FORBIDDEN naming `field`.
 */
async function explicitAccount(
  em: EntityManager,
  deps: ActivityDeps,
  request: OperationRequest<InitializePositionItemData>,
  instrument: FinancialInstrument,
  owner: string,
  field: string,
): Promise<{ account: Account; explicit: ExplicitAccount }> {
  const scope = scopeOf(request);
  const account = await findAccountByLookup(em, scope, request.itemData.positionToInitialize.position!, field);
  assertMaySign(account, request.organizationId, request.organizationExternalId, field);
  const active = await em.findOne(Position, { ...scope, address: account.address, status: 'ACTIVE' });
  checkExplicitAccount(account, !!active, owner, field);
  const network = deps.networks.get(request.cluster)!;
  const [onchain, mint] = await Promise.all([network.getAccount(account.address), network.getAccount(instrument.mintAddress)]);
  const mintSize = mint ? positionAccountSize(mint.owner, mint.data) : null;
  const prepared = explicitAccountPreparation(
    account.address,
    onchain && { owner: onchain.owner, lamports: onchain.lamports, dataLength: onchain.data.length },
    { address: instrument.mintAddress, size: mintSize },
    field,
  );
  const mintAccount = await em.findOne(Account, { id: instrument.mintAccountId });
  return {
    account,
    explicit: {
      accountId: account.id,
      topUp: prepared.topUp.toString(),
      size: prepared.size,
      allocate: prepared.allocate,
      type: mintAccount?.type === 'ASSET_TOKEN' ? 'ASSET_TOKEN_ACCOUNT' : 'FUNDS_TOKEN_ACCOUNT',
    },
  };
}

/** The token account at `address` when it exists onchain under `tokenProgram`: its amount and frozen state. */
async function existingTokenAccount(
  deps: ActivityDeps,
  cluster: string,
  at: string,
  tokenProgram: string,
): Promise<{ amount: bigint; frozen: boolean } | null> {
  const account = await deps.networks.get(cluster)!.getAccount(at);
  if (!account || account.owner !== tokenProgram || account.data.length < 165) return null;
  const state = getTokenDecoder().decode(account.data);
  return { amount: state.amount, frozen: state.state === AccountState.Frozen };
}

export const initializePositionHandler: OperationHandler<InitializePositionItemData, InitializePositionData> = {
  async lookup(em, deps, request) {
    const f = 'itemData.positionToInitialize';
    const item = request.itemData;
    const lookup = item.positionToInitialize;
    const scope = scopeOf(request);
    // The registry's validate ran these rules before the write; here they narrow the lookup.
    const { owner: ownerLookup, financialInstrument } = positionToInitialize(item);
    const instrument = await findInstrumentByLookup(em, scope, financialInstrument, `${f}.financialInstrument`);
    checkInstrumentActive(instrument, `${f}.financialInstrument`);
    // As in movements: a mint or freeze authority the lookup names must be the instrument's own.
    await checkPositionLookupAuthorities(em, scope, instrument, lookup, f);
    let owner: string;
    let ownerAccountId: string | null = null;
    if (ownerLookup.offPlatform) owner = offPlatformAddress(ownerLookup, `${f}.owner`);
    else {
      const account = await findAccountByLookup(em, scope, ownerLookup, `${f}.owner`);
      checkOwnerActive(account, `${f}.owner`);
      owner = account.address;
      ownerAccountId = account.id;
    }
    const tokenProgram = tokenProgramOf(instrument);
    let positionAddress: string;
    let explicit: ExplicitAccount | null = null;
    if (lookup.position) {
      const field = `${f}.position`;
      const found = await explicitAccount(em, deps, request, instrument, owner, field);
      positionAddress = found.account.address;
      explicit = found.explicit;
    } else {
      [positionAddress] = await findAssociatedTokenPda({ owner: address(owner), mint: address(instrument.mintAddress), tokenProgram });
    }
    const existing = await em.findOne(Position, { ...scope, address: positionAddress });
    checkNotActive(existing, positionAddress, f);

    // An associated account may already exist onchain (CreateIdempotent leaves it as it is): its
    // balance and frozen state are the record's start, not 0 and the instrument's default.
    const onchain = explicit ? null : await existingTokenAccount(deps, request.cluster, positionAddress, tokenProgram);
    const frozenByDefault = onchain ? onchain.frozen : instrument.defaultPositionState === 'FROZEN';
    let thawWith: string | null = null;
    if (frozenByDefault && item.unfreeze) {
      const ref = instrument.authorities.freezeAuthority;
      const authority = requireThawAuthority(ref?.accountId ? await em.findOne(Account, { id: ref.accountId }) : null);
      assertMaySign(authority, request.organizationId, request.organizationExternalId, 'itemData.unfreeze');
      thawWith = authority.address;
    }
    const feePayer = await resolveFeePayer(em, deps, request, request.svmTransactionConfig ?? {});
    const data: InitializePositionData = {
      // An explicit position keeps its account's offchain id: one id names the account and the position.
      positionId: existing?.id ?? explicit?.accountId ?? request.newRecordId!,
      existingPositionId: existing?.id ?? null,
      address: positionAddress,
      owner,
      ownerAccountId,
      instrumentId: instrument.id,
      mint: instrument.mintAddress,
      decimals: instrument.decimals,
      version: instrument.version,
      tokenProgram,
      thawWith,
      frozen: frozenByDefault && !thawWith,
      explicit,
      balance: (onchain?.amount ?? 0n).toString(),
    };
    // The explicit account signs its own allocation and assignment to the token program.
    return {
      ...paidBy(feePayer, data, explicit ? [positionAddress] : [], thawWith ? [thawWith] : []),
      reservesAddress: existing ? undefined : positionAddress,
    };
  },

  instructions(_request, resolved) {
    const data = resolved.data;
    const payer = createNoopSigner(address(resolved.feePayer));
    const account = address(data.address);
    const programAddress = address(data.tokenProgram) as typeof TOKEN_2022_PROGRAM_ADDRESS;
    const out: Instruction[] = [];
    if (data.explicit) {
      const self = createNoopSigner(account);
      const topUp = BigInt(data.explicit.topUp);
      if (topUp > 0n) out.push(getTransferSolInstruction({ source: payer, destination: account, amount: topUp }));
      if (data.explicit.allocate) out.push(getAllocateInstruction({ newAccount: self, space: data.explicit.size }));
      out.push(getAssignInstruction({ account: self, programAddress }));
      out.push(getInitializeAccount3Instruction({ account, mint: address(data.mint), owner: address(data.owner) }, { programAddress }));
    } else {
      out.push(
        getCreateAssociatedTokenIdempotentInstruction({
          payer,
          ata: account,
          owner: address(data.owner),
          mint: address(data.mint),
          tokenProgram: programAddress,
        }),
      );
    }
    if (data.thawWith) {
      out.push(getThawAccountInstruction({ account, mint: address(data.mint), owner: createNoopSigner(address(data.thawWith)) }, { programAddress }));
    }
    return out;
  },

  async record(em, request, resolved, outcome, tx, at) {
    if (!landed(outcome)) return undefined;
    const data = resolved.data;
    // A reopened explicit account may now hold another instrument for another owner.
    const holder = { ownerAddress: data.owner, ownerAccountId: data.ownerAccountId, financialInstrumentId: data.instrumentId, mintAddress: data.mint };
    const fields = { ...holder, status: 'ACTIVE', frozen: data.frozen, lastTransactionId: tx?.id ?? null, lastTransactionAt: at, updatedAt: at };
    const balance = data.balance ?? '0';
    let positionId = data.existingPositionId ?? data.positionId;
    if (!data.existingPositionId) {
      positionId = await insertPosition(em, {
        id: data.positionId,
        organizationId: request.organizationId,
        cluster: request.cluster,
        address: data.address,
        associated: !data.explicit,
        balance,
        ...holder,
        status: 'ACTIVE',
        frozen: data.frozen,
        lastTransactionId: tx?.id ?? null,
        creationTransactionId: tx?.id ?? null,
        at,
      });
    }
    // Reopening, or a racing transfer opened it first: the record takes this transaction's state.
    // A racing movement's record keeps the balance it moved; a reopened one starts from the chain's.
    if (positionId !== data.positionId || data.existingPositionId)
      Object.assign(await em.findOneOrFail(Position, { id: positionId }), fields, data.existingPositionId ? { balance } : {});
    if (data.explicit) {
      // The account is a token account now. The pipeline moves no balance of the record a write
      // creates, and the position shares the account's id: its lamports move here, by the top-up.
      const topUp = data.positionId === data.explicit.accountId ? data.explicit.topUp : '0';
      await markTokenAccount(
        em,
        data.explicit.accountId,
        { type: data.explicit.type, dataLength: data.explicit.size, tokenVersion: data.version, tokenDecimals: data.decimals, topUp },
        tx,
        at,
      );
    }
    // The position's history (Fetch Position History) starts with this transaction; it leads the list.
    linkRecords(tx, [positionId], true);
    return { onchainId: data.address, offchainId: positionId };
  },
};
