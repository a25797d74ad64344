/**
 * Token-2022 extensions in the jsonParsed shape of Agave's account decoder
 * (account-decoder/src/parse_token_extension.rs): `{extension, state}` with the cluster's
 * names and field types, from @solana-program/token-2022's decoded values (already made plain:
 * options unwrapped to null, bytes as base64, maps as pairs).
 *
 * Where kit and Agave differ: optional pubkeys kit decodes as an address (the zero key for
 * none) are null; ElGamal keys are base64, not base58; the default account state is its name;
 * a few names (`confidentialTransferFeeConfig`, `pendingBalanceLo/Hi`); extensions without state
 * carry no `state` key at all.
 */
import { decodeBase58Exact } from './base58';

const ZERO_ADDRESS = '11111111111111111111111111111111';
const ACCOUNT_STATES = ['uninitialized', 'initialized', 'frozen'];

type State = Record<string, unknown>;

/** An OptionalNonZeroPubkey: the zero key means none. */
const optionalKey = (value: unknown) => (value === ZERO_ADDRESS || value === undefined ? null : value);

/** An ElGamal public key kit shows as a base58 address; Agave prints the 32 bytes as base64. */
function elgamalKey(value: unknown): unknown {
  const bytes = typeof value === 'string' ? decodeBase58Exact(value, 32) : null;
  return bytes ? Buffer.from(bytes).toString('base64') : (value ?? null);
}

const UNIT_EXTENSIONS = new Set(['Uninitialized', 'ImmutableOwner', 'NonTransferable', 'NonTransferableAccount', 'PausableAccount']);

/** Per kit kind: the cluster's name and state. Kinds not listed keep kit's fields, camel-cased name. */
const CONVERTERS: Record<string, (state: State) => [string, State]> = {
  TransferFeeConfig: (s) => [
    'transferFeeConfig',
    {
      transferFeeConfigAuthority: optionalKey(s.transferFeeConfigAuthority),
      withdrawWithheldAuthority: optionalKey(s.withdrawWithheldAuthority),
      withheldAmount: s.withheldAmount,
      olderTransferFee: s.olderTransferFee,
      newerTransferFee: s.newerTransferFee,
    },
  ],
  MintCloseAuthority: (s) => ['mintCloseAuthority', { closeAuthority: optionalKey(s.closeAuthority) }],
  ConfidentialTransferMint: (s) => [
    'confidentialTransferMint',
    {
      authority: s.authority ?? null,
      autoApproveNewAccounts: s.autoApproveNewAccounts,
      auditorElgamalPubkey: s.auditorElgamalPubkey == null ? null : elgamalKey(s.auditorElgamalPubkey),
    },
  ],
  ConfidentialTransferFee: (s) => [
    'confidentialTransferFeeConfig',
    {
      authority: s.authority ?? null,
      withdrawWithheldAuthorityElgamalPubkey: elgamalKey(s.elgamalPubkey),
      harvestToMintEnabled: s.harvestToMintEnabled,
      withheldAmount: s.withheldAmount,
    },
  ],
  ConfidentialTransferAccount: (s) => [
    'confidentialTransferAccount',
    {
      approved: s.approved,
      elgamalPubkey: elgamalKey(s.elgamalPubkey),
      pendingBalanceLo: s.pendingBalanceLow,
      pendingBalanceHi: s.pendingBalanceHigh,
      availableBalance: s.availableBalance,
      decryptableAvailableBalance: s.decryptableAvailableBalance,
      allowConfidentialCredits: s.allowConfidentialCredits,
      allowNonConfidentialCredits: s.allowNonConfidentialCredits,
      pendingBalanceCreditCounter: s.pendingBalanceCreditCounter,
      maximumPendingBalanceCreditCounter: s.maximumPendingBalanceCreditCounter,
      expectedPendingBalanceCreditCounter: s.expectedPendingBalanceCreditCounter,
      actualPendingBalanceCreditCounter: s.actualPendingBalanceCreditCounter,
    },
  ],
  DefaultAccountState: (s) => ['defaultAccountState', { accountState: ACCOUNT_STATES[Number(s.state)] ?? 'uninitialized' }],
  InterestBearingConfig: (s) => [
    'interestBearingConfig',
    {
      rateAuthority: optionalKey(s.rateAuthority),
      initializationTimestamp: s.initializationTimestamp,
      preUpdateAverageRate: s.preUpdateAverageRate,
      lastUpdateTimestamp: s.lastUpdateTimestamp,
      currentRate: s.currentRate,
    },
  ],
  PermanentDelegate: (s) => ['permanentDelegate', { delegate: optionalKey(s.delegate) }],
  TransferHook: (s) => ['transferHook', { authority: optionalKey(s.authority), programId: optionalKey(s.programId) }],
  ConfidentialMintBurn: (s) => [
    'confidentialMintBurn',
    {
      confidentialSupply: s.confidentialSupply,
      decryptableSupply: s.decryptableSupply,
      supplyElgamalPubkey: elgamalKey(s.supplyElgamalPubkey),
      pendingBurn: s.pendingBurn,
    },
  ],
  // Agave prints the f64 multipliers with Rust's Display ("1", "1.5"), as JavaScript's String does.
  ScaledUiAmountConfig: (s) => [
    'scaledUiAmountConfig',
    {
      authority: optionalKey(s.authority),
      multiplier: String(s.multiplier),
      newMultiplierEffectiveTimestamp: s.newMultiplierEffectiveTimestamp,
      newMultiplier: String(s.newMultiplier),
    },
  ],
};

const lowerFirst = (name: string) => name.charAt(0).toLowerCase() + name.slice(1);

export function extensionJson(kind: string, state: State): { extension: string; state?: State } {
  if (UNIT_EXTENSIONS.has(kind)) return { extension: lowerFirst(kind) };
  const convert = CONVERTERS[kind];
  if (!convert) return { extension: lowerFirst(kind), state };
  const [extension, converted] = convert(state);
  return { extension, state: converted };
}
