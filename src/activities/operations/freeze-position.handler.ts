/** Freeze / Unfreeze Position (SPL and Token-2022): one instruction signed by the instrument's freeze authority. */
import { TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { TOKEN_2022_PROGRAM_ADDRESS, getFreezeAccountInstruction, getThawAccountInstruction } from '@solana-program/token-2022';
import { address, createNoopSigner } from '@solana/kit';
import type { SvmTransactionConfigInput } from '../../api/codecs/common.codecs';
import type { PositionLookupInput } from '../../api/codecs/position.codecs';
import { Account, FinancialInstrument, Position } from '../../db/entities';
import { assertMaySign } from '../../db/repositories/accounts.repository';
import { findPositionByLookup } from '../../db/repositories/positions.repository';
import { validationError } from '../../domain/errors';
import { resolveFeePayer } from './fee-payer';
import type { OperationHandler } from './operation-handler';

interface FreezeData {
  positionId: string;
  address: string;
  mint: string;
  authority: string;
  tokenProgram: string;
}

export function freezeHandler(freeze: boolean): OperationHandler {
  const field = 'itemData.position';
  return {
    async lookup(em, deps, request) {
      const item = request.itemData as { position: PositionLookupInput };
      const position = await findPositionByLookup(em, { organizationId: request.organizationId, cluster: request.cluster }, item.position, field);
      if (position.status !== 'ACTIVE') throw validationError(field, `the position is ${position.status}`);
      if (position.frozen === freeze) throw validationError(field, `the position is already ${freeze ? 'frozen' : 'unfrozen'}`);
      const instrument = await em.findOneOrFail(FinancialInstrument, { id: position.financialInstrumentId });
      const ref = instrument.authorities.freezeAuthority;
      if (!ref) throw validationError(field, 'the instrument has no freeze authority');
      const authority = ref.accountId ? await em.findOne(Account, { id: ref.accountId }) : null;
      if (!authority) throw validationError(field, 'the freeze authority is not onboarded, so the service cannot sign for it');
      assertMaySign(authority, request.organizationId, request.organizationExternalId, `${field} (freeze authority)`);
      const feePayer = await resolveFeePayer(em, deps, request, (request.svmTransactionConfig ?? {}) as SvmTransactionConfigInput);
      const data: FreezeData = {
        positionId: position.id,
        address: position.address,
        mint: position.mintAddress,
        authority: authority.address,
        tokenProgram: instrument.version === 'SPL' ? TOKEN_PROGRAM_ADDRESS : TOKEN_2022_PROGRAM_ADDRESS,
      };
      return { needsTransaction: true, feePayer: feePayer.address, signers: [...new Set([feePayer.address, authority.address])], debits: [], webhooks: feePayer.webhooks, data: { ...data } };
    },

    instructions(_request, resolved) {
      const data = resolved.data as unknown as FreezeData;
      const input = { account: address(data.address), mint: address(data.mint), owner: createNoopSigner(address(data.authority)) };
      const config = { programAddress: address(data.tokenProgram) as typeof TOKEN_2022_PROGRAM_ADDRESS };
      return [freeze ? getFreezeAccountInstruction(input, config) : getThawAccountInstruction(input, config)];
    },

    async record(em, _request, resolved, outcome, tx, at) {
      if (!outcome || !['CONFIRMED', 'FINALIZED', 'SUBMITTED'].includes(outcome.status)) return undefined;
      const data = resolved.data as unknown as FreezeData;
      Object.assign(await em.findOneOrFail(Position, { id: data.positionId }), { frozen: freeze, lastTransactionId: tx?.id ?? null, lastTransactionAt: at });
      return { onchainId: data.address, offchainId: data.positionId };
    },
  };
}
