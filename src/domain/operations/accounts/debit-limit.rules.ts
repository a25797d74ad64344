/**
 * The debit limits of an account payload (spec 2.3, 8), on the request alone: every field of an
 * entry acts or is refused. A duration belongs to a DURATION limit (which needs one); an approvers
 * count the listed approvers can reach; a mint authority that is matched, never asked to sign.
 * VALIDATION_ERROR naming the field.
 */
import type { NetworkCurrencyDebitLimitInput, TokenDebitLimitInput } from './account.inputs';
import { validationError } from '../../errors';

export interface DebitLimitFields {
  networkCurrencyDebitLimits?: NetworkCurrencyDebitLimitInput[];
  tokenDebitLimits?: TokenDebitLimitInput[];
}

export function checkDebitLimitFields(item: DebitLimitFields, f = 'itemData'): void {
  for (const list of ['networkCurrencyDebitLimits', 'tokenDebitLimits'] as const) {
    (item[list] ?? []).forEach((limit, i) => {
      const at = `${f}.${list}.${i}`;
      const { limitType, duration, approversForOverride = [], requiredApproversCount } = limit.maxAllowedDebit;
      if (limitType === 'DURATION' && !duration) throw validationError(`${at}.maxAllowedDebit.duration`, 'a DURATION limit needs a duration');
      if (limitType !== 'DURATION' && duration)
        throw validationError(`${at}.maxAllowedDebit.duration`, `duration applies only to limitType DURATION; a ${limitType} limit has no window`);
      if (requiredApproversCount !== undefined && requiredApproversCount > approversForOverride.length)
        throw validationError(
          `${at}.maxAllowedDebit.requiredApproversCount`,
          `requiredApproversCount must be between 1 and the ${approversForOverride.length} approvers listed in approversForOverride`,
        );
      const { mintAuthority } = limit as TokenDebitLimitInput;
      if (typeof mintAuthority === 'object' && mintAuthority.autoSign !== undefined)
        throw validationError(`${at}.mintAuthority.autoSign`, 'the mint authority of a limit is matched, never asked to sign: autoSign does not apply');
    });
  }
}
