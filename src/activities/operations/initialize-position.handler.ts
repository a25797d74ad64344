/**
 * Initialize Position: the owner's associated token account for an instrument, created idempotently
 * by the fee payer; thawed in the same transaction when the instrument freezes new positions and
 * `unfreeze` is set. An inactive position of the same account is re-initialized (same record).
 */
import { TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { TOKEN_2022_PROGRAM_ADDRESS, findAssociatedTokenPda, getCreateAssociatedTokenIdempotentInstruction, getThawAccountInstruction } from '@solana-program/token-2022';
import { address, createNoopSigner, type Instruction } from '@solana/kit';
import type { SvmTransactionConfigInput } from '../../api/codecs/common.codecs';
import type { InitializePositionItemData } from '../../api/codecs/position.codecs';
import { Account, Position } from '../../db/entities';
import { assertMaySign, findAccountByLookup, offPlatformAddress } from '../../db/repositories/accounts.repository';
import { findInstrumentByLookup } from '../../db/repositories/financial-instruments.repository';
import { conflict, validationError } from '../../domain/errors';
import { resolveFeePayer } from './fee-payer';
import type { OperationHandler } from './operation-handler';

interface PositionData {
  positionId: string;
  existingPositionId: string | null;
  address: string;
  owner: string;
  ownerAccountId: string | null;
  instrumentId: string;
  mint: string;
  tokenProgram: string;
  /** The freeze authority that thaws a position frozen by default, when `unfreeze` asks for it. */
  thawWith: string | null;
  frozen: boolean;
}

export const initializePositionHandler: OperationHandler = {
  async lookup(em, deps, request) {
    const f = 'itemData.positionToInitialize';
    const item = request.itemData as InitializePositionItemData;
    const lookup = item.positionToInitialize;
    const scope = { organizationId: request.organizationId, cluster: request.cluster };
    if (lookup.position) throw validationError(`${f}.position`, 'explicit (non-associated) position accounts are not available yet; name owner and financialInstrument');
    if (!lookup.owner) throw validationError(`${f}.owner`, 'owner is required');
    if (!lookup.financialInstrument) throw validationError(`${f}.financialInstrument`, 'financialInstrument is required');
    const instrument = await findInstrumentByLookup(em, scope, lookup.financialInstrument, `${f}.financialInstrument`);
    if (instrument.status !== 'ACTIVE') throw validationError(`${f}.financialInstrument`, `the instrument is ${instrument.status}`);
    let owner: string;
    let ownerAccountId: string | null = null;
    if (lookup.owner.offPlatform) owner = offPlatformAddress(lookup.owner, `${f}.owner`);
    else {
      const account = await findAccountByLookup(em, scope, lookup.owner, `${f}.owner`);
      owner = account.address;
      ownerAccountId = account.id;
    }
    const tokenProgram = instrument.version === 'SPL' ? TOKEN_PROGRAM_ADDRESS : TOKEN_2022_PROGRAM_ADDRESS;
    const [ata] = await findAssociatedTokenPda({ owner: address(owner), mint: address(instrument.mintAddress), tokenProgram });
    const existing = await em.findOne(Position, { ...scope, address: ata });
    if (existing?.status === 'ACTIVE') throw conflict(`${f}`, `the position ${ata} is already active`);

    const frozenByDefault = instrument.defaultPositionState === 'FROZEN';
    let thawWith: string | null = null;
    if (frozenByDefault && item.unfreeze) {
      const ref = instrument.authorities.freezeAuthority;
      const authority = ref?.accountId ? await em.findOne(Account, { id: ref.accountId }) : null;
      if (!authority) throw validationError('itemData.unfreeze', 'the freeze authority is not onboarded, so the service cannot thaw the position');
      assertMaySign(authority, request.organizationId, request.organizationExternalId, 'itemData.unfreeze');
      thawWith = authority.address;
    }
    const feePayer = await resolveFeePayer(em, deps, request, (request.svmTransactionConfig ?? {}) as SvmTransactionConfigInput);
    const data: PositionData = {
      positionId: existing?.id ?? request.newRecordId!,
      existingPositionId: existing?.id ?? null,
      address: ata,
      owner,
      ownerAccountId,
      instrumentId: instrument.id,
      mint: instrument.mintAddress,
      tokenProgram,
      thawWith,
      frozen: frozenByDefault && !thawWith,
    };
    return {
      needsTransaction: true,
      feePayer: feePayer.address,
      signers: [...new Set([feePayer.address, ...(thawWith ? [thawWith] : [])])],
      debits: [],
      webhooks: feePayer.webhooks,
      reservesAddress: existing ? undefined : ata,
      data: { ...data },
    };
  },

  instructions(_request, resolved) {
    const data = resolved.data as unknown as PositionData;
    const out: Instruction[] = [
      getCreateAssociatedTokenIdempotentInstruction({
        payer: createNoopSigner(address(resolved.feePayer)),
        ata: address(data.address),
        owner: address(data.owner),
        mint: address(data.mint),
        tokenProgram: address(data.tokenProgram),
      }),
    ];
    if (data.thawWith) {
      out.push(getThawAccountInstruction({ account: address(data.address), mint: address(data.mint), owner: createNoopSigner(address(data.thawWith)) }, { programAddress: address(data.tokenProgram) as typeof TOKEN_2022_PROGRAM_ADDRESS }));
    }
    return out;
  },

  async record(em, request, resolved, outcome, tx, at) {
    if (!outcome || !['CONFIRMED', 'FINALIZED', 'SUBMITTED'].includes(outcome.status)) return undefined;
    const data = resolved.data as unknown as PositionData;
    const fields = { status: 'ACTIVE', frozen: data.frozen, lastTransactionId: tx?.id ?? null, lastTransactionAt: at, updatedAt: at };
    if (data.existingPositionId) {
      Object.assign(await em.findOneOrFail(Position, { id: data.existingPositionId }), fields);
    } else {
      em.create(Position, {
        id: data.positionId,
        organizationId: request.organizationId,
        cluster: request.cluster,
        address: data.address,
        ownerAddress: data.owner,
        ownerAccountId: data.ownerAccountId,
        financialInstrumentId: data.instrumentId,
        mintAddress: data.mint,
        associated: true,
        balance: '0',
        comments: null,
        code: null,
        name: null,
        creationTransactionId: tx?.id ?? null,
        creationTransactionAt: at,
        createdAt: at,
        ...fields,
      });
    }
    return { onchainId: data.address, offchainId: data.positionId };
  },
};
