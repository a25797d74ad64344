/**
 * Create Durable Nonce Accounts (spec 4.2, docs/durable-nonces.md): which fields of the accounts' payload
 * act, and the instructions of one network transaction. Pure: the lookup step supplies the new
 * addresses, the authority and the rent-exempt minimum.
 */
import { getCreateAccountInstruction, getInitializeNonceAccountInstruction, SYSTEM_PROGRAM_ADDRESS } from '@solana-program/system';
import { address, createNoopSigner, type Instruction } from '@solana/kit';
import type { CreateDurableNonceAccountsItemData } from './durable-nonce.inputs';
import { validationError } from '../../errors';

/** The size of a nonce account's data (versions, state, authority, nonce, fee calculator). */
export const NONCE_ACCOUNT_SIZE = 80;

/** Fields of the payload that a nonce account cannot take, with why (each a 400 naming `itemData.nonceAccount.<field>`). */
const refused: Partial<Record<keyof CreateDurableNonceAccountsItemData['nonceAccount'], string>> = {
  alreadyOnchain: 'this operation creates new nonce accounts; onboard an existing one with Create Account (alreadyOnchain, type NONCE)',
  skipBlockchainExistenceVerification: 'applies to onboarding with Create Account only',
  managed: 'new nonce accounts always get generated managed keys',
  privateKeyDetails: 'new nonce accounts always get generated managed keys (location DATABASE)',
  dataLength: `a nonce account is exactly ${NONCE_ACCOUNT_SIZE} bytes`,
  seed: 'a nonce account gets exactly its rent-exempt minimum',
  tokenVersion: 'a nonce account is not a token account',
  canPayFees: 'a nonce account holds data and cannot pay fees',
  globalFeePayerForOrgs: 'a nonce account holds data and cannot pay fees',
  networkCurrencyDebitLimits: 'debit limits apply to wallet kinds only (spec 8)',
  tokenDebitLimits: 'debit limits apply to wallet kinds only (spec 8)',
  networkCurrencyDebitApiKeys: 'nothing is debited from a nonce account',
  tokenDebitApiKeys: 'nothing is debited from a nonce account',
  missingSignatureWebhooks: 'a nonce account signs only its own creation',
  preTransactionSubmitWebhooks: 'a nonce account signs only its own creation',
  postTransactionSubmitWebhooks: 'a nonce account signs only its own creation',
};

/** The request's own rules; throws VALIDATION_ERROR naming the field. */
export function validateCreateDurableNonceAccounts(item: CreateDurableNonceAccountsItemData): void {
  const f = 'itemData.nonceAccount';
  for (const [field, why] of Object.entries(refused)) {
    if ((item.nonceAccount as Record<string, unknown>)[field] !== undefined) throw validationError(`${f}.${field}`, `${f}.${field} is not accepted: ${why}`);
  }
  const type = item.nonceAccount.offchainReferences?.type;
  if (type !== undefined && type !== 'NONCE') throw validationError(`${f}.offchainReferences.type`, `nonce accounts have offchain reference type NONCE, not ${type}`);
  if (item.nonceAccount.offchainReferences?.newAlId) throw validationError(`${f}.offchainReferences.newAlId`, 'AL IDs are generated for financial instruments only');
}

export interface NonceAccountPlan {
  feePayer: string;
  authority: string;
  lamports: bigint;
  /** The new nonce accounts of this transaction (each signs its creation). */
  addresses: string[];
}

/** Per nonce account: create it (rent-exempt, owned by the System Program) and initialize its nonce with the authority. */
export function planNonceAccounts(plan: NonceAccountPlan): Instruction[] {
  return plan.addresses.flatMap((nonce) => [
    getCreateAccountInstruction({
      payer: createNoopSigner(address(plan.feePayer)),
      newAccount: createNoopSigner(address(nonce)),
      lamports: plan.lamports,
      space: NONCE_ACCOUNT_SIZE,
      programAddress: SYSTEM_PROGRAM_ADDRESS,
    }),
    getInitializeNonceAccountInstruction({ nonceAccount: address(nonce), nonceAuthority: address(plan.authority) }),
  ]);
}
