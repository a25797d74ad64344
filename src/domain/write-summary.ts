/**
 * What an operator reads of a write in the Temporal Web UI's list and header (the workflow's static
 * summary and details) without opening its input: the operation, the organization, and for a
 * movement its amounts and ends. Built from a fixed list of fields only (values and lookups), so no
 * secret the request may hold (an imported key, a webhook credential) can reach it.
 */
import type { WriteRequest } from './write';

type Lookup = { offchainId?: string; onchainId?: string; offchainReferences?: { code?: string } } & Record<string, unknown>;
type Value = { amount?: string | number; lamports?: string | number };

/** The fields naming a movement's ends, in the order read: from → to. */
const FROM = ['source', 'burnFrom', 'account', 'accountToInactivate', 'position'] as const;
const TO = ['destination', 'mintTo', 'transferRemainingNetworkCurrencyTo'] as const;

/** `CREATE_ACCOUNT` → `Create Account`. */
export const operationWords = (operation: string): string =>
  operation
    .toLowerCase()
    .split('_')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join(' ');

/** A lookup as an operator recognizes it: the offchain id, else the address, else the code. */
function named(lookup: unknown): string | undefined {
  if (!lookup || typeof lookup !== 'object') return undefined;
  const l = lookup as Lookup;
  const position = l.position as Lookup | undefined;
  if (position) return named(position);
  const owner = named(l.owner);
  return l.offchainId ?? l.onchainId ?? l.offchainReferences?.code ?? (owner ? `${owner}'s position` : undefined);
}

function amountOf(value: unknown): string | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const v = value as Value;
  if (v.amount !== undefined) return String(v.amount);
  if (v.lamports !== undefined) return `${v.lamports} base units`;
  return undefined;
}

/** One movement: its amount and its ends, each where the request names it. */
function movement(item: Record<string, unknown>): string | undefined {
  const amount = amountOf(item.value) ?? (item.burnEntireBalance || item.transferEntireBalance ? 'entire balance' : undefined);
  const from = FROM.map((f) => named(item[f])).find(Boolean);
  const to = TO.map((f) => named(item[f])).find(Boolean);
  // Without an amount, a lone end is the object acted on (Update Account's account), not a movement.
  if (!amount && !(from && to)) return undefined;
  const ends = from && to ? `${from} → ${to}` : from ? `from ${from}` : to ? `to ${to}` : undefined;
  return [amount, ends].filter(Boolean).join(' ');
}

/** The movements a request names: its itemData's own, or each of a trade's operations. */
function movements(itemData: unknown): string[] {
  if (!itemData || typeof itemData !== 'object') return [];
  const item = itemData as Record<string, unknown>;
  const operations = Array.isArray(item.operations) ? (item.operations as Record<string, unknown>[]) : [];
  const parts = operations.flatMap((o) => Object.values(o).filter((x): x is Record<string, unknown> => !!x && typeof x === 'object'));
  return [item, ...parts].map(movement).filter((m): m is string => m !== undefined);
}

/** The single line the UI lists the write by, and the details it shows above the history (markdown). */
export function writeSummary(request: Pick<WriteRequest, 'operation' | 'transactionId' | 'itemData'>, organizationExternalId: string) {
  const moved = movements(request.itemData);
  const summary = [operationWords(request.operation), organizationExternalId, ...moved.slice(0, 1)].join(' · ');
  const details = [
    `**${operationWords(request.operation)}** for organization \`${organizationExternalId}\``,
    `transaction \`${request.transactionId}\``,
    ...moved.map((m) => `- ${m}`),
  ].join('\n');
  return { staticSummary: summary, staticDetails: details };
}
