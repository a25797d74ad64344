/**
 * A Create Account payload (spec 2.3) inside another operation (Create Durable Nonce Accounts'
 * `nonceAccount`, Create Address Lookup Table's `addressLookupTable`, Create Onchain Data Source's
 * `onchainDataSource`): every field the operation cannot honour is refused, naming it and saying
 * why (API.md section 10). Pure.
 */
import type { CreateAccountItemData } from './account.inputs';
import { validationError } from '../../errors';

/** How an operation treats one payload field: why it is refused, and the values it honours all the same. */
export interface PayloadFieldRule {
  why: string;
  /** The values the operation honours (default: false and the empty list, which ask for nothing). */
  honours?: (value: unknown) => boolean;
}
export type PayloadFieldRules = Partial<Record<keyof CreateAccountItemData, string | PayloadFieldRule>>;

const asksForNothing = (value: unknown) => value === false || (Array.isArray(value) && value.length === 0);

/** Refuses the first field of `payload` a rule does not honour: VALIDATION_ERROR naming `${at}.<field>`. */
export function checkPayloadFields(payload: CreateAccountItemData, rules: PayloadFieldRules, at: string): void {
  for (const [field, rule] of Object.entries(rules)) {
    const value = (payload as Record<string, unknown>)[field];
    if (value === undefined) continue;
    const { why, honours = asksForNothing } = typeof rule === 'string' ? { why: rule } : rule;
    // Only a flag or a number is echoed: a list or object may hold credentials (webhooks, keys).
    const shown = typeof value === 'boolean' || typeof value === 'number' ? ` ${value}` : '';
    if (!honours(value)) throw validationError(`${at}.${field}`, `${at}.${field}${shown} is not accepted: ${why}`);
  }
}

/** `managed` of an account whose key the service generates: true (or absent) is what happens, false is refused. */
export const generatedKey = (why: string): PayloadFieldRule => ({ why, honours: (value) => value === true });

/**
 * `privateKeyDetails` of an account whose key the service generates: only `location` (one of
 * DATABASE, SECRETS) acts; an imported or threshold key is refused. VALIDATION_ERROR naming the field.
 */
export function checkGeneratedKeyDetails(details: CreateAccountItemData['privateKeyDetails'], at: string, why: string): void {
  if (!details) return;
  for (const field of ['privateKey', 'publickKey', 'dkgKeys'] as const) {
    if (details[field] !== undefined) throw validationError(`${at}.privateKeyDetails.${field}`, `${at}.privateKeyDetails.${field} is not accepted: ${why}`);
  }
  if ((details.location?.length ?? 0) > 1) throw validationError(`${at}.privateKeyDetails.location`, 'a key is kept in one location: DATABASE or SECRETS');
}
