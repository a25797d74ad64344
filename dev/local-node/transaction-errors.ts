/**
 * LiteSVM's error objects turned into the Rust serde JSON form a cluster sends
 * (`"BlockhashNotFound"`, `{"InstructionError":[0,{"Custom":1}]}`), which kit decodes into typed errors.
 */
import {
  InstructionErrorBorshIo,
  InstructionErrorCustom,
  TransactionErrorDuplicateInstruction,
  TransactionErrorInstructionError,
  TransactionErrorInsufficientFundsForRent,
  TransactionErrorProgramExecutionTemporarilyRestricted,
  type FailedTransactionMetadata,
} from 'litesvm/dist/internal';

export type TransactionErrorJson = string | { [variant: string]: unknown };

// Variant order of LiteSVM's `TransactionErrorFieldless` / `InstructionErrorFieldless` (numeric const enums).
const TRANSACTION_ERROR_NAMES = [
  'AccountInUse',
  'AccountLoadedTwice',
  'AccountNotFound',
  'ProgramAccountNotFound',
  'InsufficientFundsForFee',
  'InvalidAccountForFee',
  'AlreadyProcessed',
  'BlockhashNotFound',
  'CallChainTooDeep',
  'MissingSignatureForFee',
  'InvalidAccountIndex',
  'SignatureFailure',
  'InvalidProgramForExecution',
  'SanitizeFailure',
  'ClusterMaintenance',
  'AccountBorrowOutstanding',
  'WouldExceedMaxBlockCostLimit',
  'UnsupportedVersion',
  'InvalidWritableAccount',
  'WouldExceedMaxAccountCostLimit',
  'WouldExceedAccountDataBlockLimit',
  'TooManyAccountLocks',
  'AddressLookupTableNotFound',
  'InvalidAddressLookupTableOwner',
  'InvalidAddressLookupTableData',
  'InvalidAddressLookupTableIndex',
  'InvalidRentPayingAccount',
  'WouldExceedMaxVoteCostLimit',
  'WouldExceedAccountDataTotalLimit',
  'MaxLoadedAccountsDataSizeExceeded',
  'ResanitizationNeeded',
  'InvalidLoadedAccountsDataSizeLimit',
  'UnbalancedTransaction',
  'ProgramCacheHitMaxLimit',
  'CommitCancelled',
];

const INSTRUCTION_ERROR_NAMES = [
  'GenericError',
  'InvalidArgument',
  'InvalidInstructionData',
  'InvalidAccountData',
  'AccountDataTooSmall',
  'InsufficientFunds',
  'IncorrectProgramId',
  'MissingRequiredSignature',
  'AccountAlreadyInitialized',
  'UninitializedAccount',
  'UnbalancedInstruction',
  'ModifiedProgramId',
  'ExternalAccountLamportSpend',
  'ExternalAccountDataModified',
  'ReadonlyLamportChange',
  'ReadonlyDataModified',
  'DuplicateAccountIndex',
  'ExecutableModified',
  'RentEpochModified',
  'NotEnoughAccountKeys',
  'AccountDataSizeChanged',
  'AccountNotExecutable',
  'AccountBorrowFailed',
  'AccountBorrowOutstanding',
  'DuplicateAccountOutOfSync',
  'InvalidError',
  'ExecutableDataModified',
  'ExecutableLamportChange',
  'ExecutableAccountNotRentExempt',
  'UnsupportedProgramId',
  'CallDepth',
  'MissingAccount',
  'ReentrancyNotAllowed',
  'MaxSeedLengthExceeded',
  'InvalidSeeds',
  'InvalidRealloc',
  'ComputationalBudgetExceeded',
  'PrivilegeEscalation',
  'ProgramEnvironmentSetupFailure',
  'ProgramFailedToComplete',
  'ProgramFailedToCompile',
  'Immutable',
  'IncorrectAuthority',
  'AccountNotRentExempt',
  'InvalidAccountOwner',
  'ArithmeticOverflow',
  'UnsupportedSysvar',
  'IllegalOwner',
  'MaxAccountsDataAllocationsExceeded',
  'MaxAccountsExceeded',
  'MaxInstructionTraceLengthExceeded',
  'BuiltinProgramsMustConsumeComputeUnits',
  'BorshIoError',
];

type LiteSvmTransactionError = ReturnType<FailedTransactionMetadata['err']>;
type LiteSvmInstructionError = ReturnType<TransactionErrorInstructionError['err']>;

function instructionErrorToJson(error: LiteSvmInstructionError): unknown {
  if (error instanceof InstructionErrorCustom) return { Custom: error.code };
  if (error instanceof InstructionErrorBorshIo) return error.msg ? { BorshIoError: error.msg } : 'BorshIoError';
  return INSTRUCTION_ERROR_NAMES[error as number] ?? 'GenericError';
}

export function transactionErrorToJson(error: LiteSvmTransactionError): TransactionErrorJson {
  if (error instanceof TransactionErrorInstructionError) {
    return { InstructionError: [error.index, instructionErrorToJson(error.err())] };
  }
  if (error instanceof TransactionErrorDuplicateInstruction) return { DuplicateInstruction: error.index };
  if (error instanceof TransactionErrorInsufficientFundsForRent) {
    return { InsufficientFundsForRent: { account_index: error.accountIndex } };
  }
  if (error instanceof TransactionErrorProgramExecutionTemporarilyRestricted) {
    return { ProgramExecutionTemporarilyRestricted: { account_index: error.accountIndex } };
  }
  return TRANSACTION_ERROR_NAMES[error as number] ?? 'SanitizeFailure';
}

const TRANSACTION_ERROR_TEXT: Record<string, string> = {
  AccountInUse: 'Account in use',
  AccountLoadedTwice: 'Account loaded twice',
  AccountNotFound: 'Attempt to debit an account but found no record of a prior credit.',
  ProgramAccountNotFound: 'Attempt to load a program that does not exist',
  InsufficientFundsForFee: 'Insufficient funds for fee',
  InvalidAccountForFee: 'This account may not be used to pay transaction fees',
  AlreadyProcessed: 'This transaction has already been processed',
  BlockhashNotFound: 'Blockhash not found',
  SignatureFailure: 'Transaction did not pass signature verification',
  InvalidProgramForExecution: 'This program may not be used for executing instructions',
  SanitizeFailure: 'Transaction failed to sanitize accounts offsets correctly',
  AddressLookupTableNotFound: "Transaction loads an address table account that doesn't exist",
  InvalidAddressLookupTableIndex: 'Transaction address table lookup uses an invalid index',
};

const INSTRUCTION_ERROR_TEXT: Record<string, string> = {
  GenericError: 'generic instruction error',
  InvalidArgument: 'invalid program argument',
  InvalidInstructionData: 'invalid instruction data',
  InvalidAccountData: 'invalid account data for instruction',
  AccountDataTooSmall: 'account data too small for instruction',
  InsufficientFunds: 'insufficient funds for instruction',
  IncorrectProgramId: 'incorrect program id for instruction',
  MissingRequiredSignature: 'missing required signature for instruction',
  AccountAlreadyInitialized: 'instruction requires an uninitialized account',
  UninitializedAccount: 'instruction requires an initialized account',
  MissingAccount: 'An account required by the instruction is missing',
  ComputationalBudgetExceeded: 'Computational budget exceeded',
  IllegalOwner: 'Provided owner is not allowed',
};

/** The human text a cluster puts in the JSON-RPC error message (Rust's `Display`). */
export function describeTransactionError(error: TransactionErrorJson): string {
  if (typeof error === 'string') return TRANSACTION_ERROR_TEXT[error] ?? error;
  const [variant, detail] = Object.entries(error)[0] ?? ['UnknownError', null];
  if (variant === 'InstructionError' && Array.isArray(detail)) {
    const [index, inner] = detail as [number, unknown];
    let text: string;
    if (typeof inner === 'string') text = INSTRUCTION_ERROR_TEXT[inner] ?? inner;
    else if (inner && typeof inner === 'object' && 'Custom' in inner)
      text = `custom program error: 0x${Number((inner as { Custom: number }).Custom).toString(16)}`;
    else text = JSON.stringify(inner);
    return `Error processing Instruction ${index}: ${text}`;
  }
  if (variant === 'InsufficientFundsForRent') {
    const accountIndex = (detail as { account_index?: number } | null)?.account_index;
    return `Transaction results in an account (${accountIndex}) with insufficient funds for rent`;
  }
  return variant;
}
