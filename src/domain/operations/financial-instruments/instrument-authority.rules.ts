/**
 * The authority an instrument write is signed by (Pause, Unpause, Close): the lookup step finds its
 * account record by the instrument's stored reference; these rules decide what it found.
 */
import { validationError } from '../../errors';

/**
 * The authority's account record, which must be onboarded for the service to sign for it (`what`
 * names it: 'pausable authority'). Throws VALIDATION_ERROR naming itemData.financialInstrument.
 */
export function onboardedAuthority<A>(account: A | null | undefined, what: string): A {
  if (!account) throw validationError('itemData.financialInstrument', `the ${what} is not onboarded, so the service cannot sign for it`);
  return account;
}
