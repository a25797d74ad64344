/** Address lookup table records as the API shows them (spec 2.9). */
import type { Account, AddressLookupTable } from '../../db/entities';
import type { AddressLookupTableRecordBody } from '../../domain/responses/address-lookup-table.responses';
import type { AuthorityReferenceBody } from '../../domain/responses/financial-instrument.responses';
import { offchainDetails } from './offchain-details';

/** What the chain says of the table, when read (details); the record's own values otherwise. */
export interface TableView {
  addresses: string[];
  frozen: boolean;
  deactivated: boolean;
  closed: boolean;
}

/** `accounts`: the onboarded accounts among the authority and components, by address. */
export function presentAddressLookupTable(table: AddressLookupTable, accounts: Map<string, Account>, view?: TableView): AddressLookupTableRecordBody {
  const reference = (addr: string): AuthorityReferenceBody => {
    const account = accounts.get(addr);
    return {
      onchain: { id: addr },
      offchain: { id: account?.id ?? null },
      managed: account?.managed ?? false,
      tenantOrganizationId: account?.organizationId ?? null,
    };
  };
  return {
    onchain: { id: table.address, lastTransactionAt: table.lastTransactionAt ?? null },
    offchain: { id: table.id, ...offchainDetails(table) },
    authority: reference(table.authorityAddress),
    componentAddresses: (view?.addresses ?? table.componentAddresses).map(reference),
    managed: table.managed,
    wasAlreadyOnchain: table.wasOnchainAlready,
    frozen: view?.frozen ?? table.frozen,
    deactivated: view?.deactivated ?? table.deactivated,
    closed: view?.closed ?? table.closed,
  };
}
