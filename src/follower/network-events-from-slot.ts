/**
 * Turning `subscribeToNetworkEvents` on follows from the network's current slot (API.md section 9,
 * docs/chain-follower.md): the write that turns it on reads the slot just before its record's
 * database transaction and hands it to the trigger that sets `account.network_events_from_slot`
 * (migration 0056) as a transaction-local setting. Without it (a path that does not say), the
 * trigger falls back to the slot after the tip the follower last saw.
 */
import type { EntityManager } from '@mikro-orm/postgresql';

/** The transaction-local setting the trigger reads. */
const SETTING = 'ledger.network_events_from_slot';

/** Whether an operation's itemData turns the flag on anywhere (an account payload, a nested one such as a mint's or a strategy's). */
export function turnsNetworkEventsOn(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(turnsNetworkEventsOn);
  if (value === null || typeof value !== 'object') return false;
  return Object.entries(value).some(([key, v]) => (key === 'subscribeToNetworkEvents' ? v === true : turnsNetworkEventsOn(v)));
}

/** Accounts whose flag turns on in `em`'s transaction follow from `slot`. */
export async function followNetworkEventsFrom(em: EntityManager, slot: bigint): Promise<void> {
  await em.getConnection().execute('select set_config(?, ?, true)', [SETTING, slot.toString()], 'all', em.getTransactionContext());
}
