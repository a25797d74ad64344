/** What the activities need from the outside world: narrow ports, wired in src/main. */
import type { Orm } from '../db/orm';
import type { WriteRequest } from '../domain/write';
import type { KeyStore } from '../custody/key-store';
import type { Sealer } from '../custody/sealing';
import type { Networks } from '../network/svm-network';
import type { LogoPolicy } from '../storage/logo-fetcher';
import type { OutboundUrlPolicy } from '../network/outbound-url';
import type { PriceSource } from '../domain/prices';
import type { LoanLifecycleInput } from '../domain/loan-lifecycle';
import type { OraclePolicy } from './oracle/http-source';
import type { OracleSchedules } from './oracle/schedules';

export interface ActivityDeps {
  orm: Orm;
  networks: Networks;
  keyStore: KeyStore;
  sealer: Sealer;
  /** The global fee payer: pays when a request names none. */
  feePayerAddress: string;
  /** Where instrument logos may be copied from, and how big they may be. */
  logoPolicy: LogoPolicy;
  /** Where webhook deliveries and OAuth2 token requests may go (checked again after DNS at each delivery). */
  webhookUrlPolicy: OutboundUrlPolicy;
  /** Outgoing HTTP for webhooks (injected so tests can point it anywhere). */
  fetch: typeof fetch;
  now: () => Date;
  /** How long a write waits for its approvers (docs/approvals.md); default 24 h. */
  approvalTimeoutMs?: number;
  /** Starts a write's post-submit webhook delivery workflow under a fixed id (idempotent). */
  deliveries: {
    start(workflowId: string, request: WriteRequest): Promise<void>;
    /** Starts the NETWORK_TRANSACTION webhook delivery of a network transaction's record under a fixed id (idempotent; docs/chain-follower.md). */
    startNetworkEvents?(workflowId: string, transactionId: string): Promise<void>;
    /** Starts the delivery of a record's second event once its transaction left the chain (idempotent; docs/finality.md). */
    startLeftChainEvents?(workflowId: string, transactionId: string): Promise<void>;
  };
  /** Instrument prices for loan-to-value (docs/loans.md); default noPrices until oracle data sources supply them. */
  prices?: PriceSource;
  /** Starts a loan's own workflow under its fixed id (idempotent), and tells it the loan changed. */
  loans?: { start(input: LoanLifecycleInput): Promise<void>; changed(organizationId: string, escrow: string): Promise<void> };
  /** Seconds in a loan day (default 86,400; tests shorten terms with LOAN_SECONDS_PER_DAY). */
  loanSecondsPerDay?: number;
  /** Where oracle jobs may read from, with their caps (ORACLE_ALLOWED_HOSTS; absent: nowhere). */
  oraclePolicy?: OraclePolicy;
  /** The Temporal Schedules of scheduled refreshes (absent: a data source is refreshed only on request). */
  oracleSchedules?: OracleSchedules;
}
