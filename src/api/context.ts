/** What every route handler may use: the narrow dependencies of the API, wired in src/main. */
import type Koa from 'koa';
import type { Orm } from '../db/orm';
import type { Sealer } from '../custody/sealing';
import type { OutboundUrlPolicy } from '../network/outbound-url';
import type { KeyStore } from '../custody/key-store';
import type { Networks } from '../network/svm-network';
import type { Commitment } from '../domain/write';
import type { WriteClientDeps } from '../client/write-client';

import type { PriceSource } from '../domain/prices';
import type { CallerCache } from './caller-cache';
import type { RateLimits } from './rate-limits';
import type { Logger } from '../observability/logger';
import type { Role } from '../domain/roles';

export interface ApiDeps {
  orm: Orm;
  /** The Temporal connection, used only through the write client (src/client). */
  temporal: WriteClientDeps['temporal'];
  networks: Networks;
  sealer: Sealer;
  /** Where webhook endpoints and OAuth2 token URLs may point (checked when an account's webhooks are set). */
  webhookUrlPolicy: OutboundUrlPolicy;
  /** ORACLE_ALLOWED_HOSTS: a job definition naming another host is refused when it is sent (absent: none allowed). */
  oracleAllowedHosts?: string[];
  platformName: string;
  /** The per-key limit's numbers, for messages; the limiters themselves are `rateLimits`. */
  rateLimit: { perSecond: number; burst: number };
  /** Shared by every API process (src/api/rate-limits.ts). */
  rateLimits: RateLimits;
  /** Proxies in front that append to X-Forwarded-For (0: the socket's address is the client's). */
  trustProxyHops?: number;
  defaultCommitment: Commitment;
  /** How long a write waits for its result before answering 202 as if asked to respond async. */
  writeWaitMs: number;
  /** How long a write retries faults before it has sent anything (WRITE_DEADLINE_SECONDS; default DEFAULT_WRITE_DEADLINE_MS). */
  writeDeadlineMs?: number;
  now: () => Date;
  /** Writes waiting for their result are told when their record rests (src/client/write-rests.ts); none: the record is polled. */
  rests?: WriteClientDeps['rests'];
  /** Exports held keys for Fetch Account Private Key (role-gated). */
  keyStore: KeyStore;
  /** Audit trail of sensitive reads (never given the secret itself). */
  audit: (message: string) => void;
  /** Readiness: whether the database and Temporal answer. */
  ready: () => Promise<boolean>;
  /** The access log's logger (none: no access log, as in tests that do not ask for one). */
  logger?: Logger;
  /** Instrument prices loans are shown at (docs/loans.md); default noPrices. */
  prices?: PriceSource;
  /** Authenticated callers by key hash; default: a 5 s cache (the API process gives one kept fresh by announcements). */
  callers?: CallerCache;
  /** Tracing is on: request spans are named by their route (src/api/trace-route.ts). */
  traceRoutes?: boolean;
  /**
   * OPERATOR_ORGANIZATION: the external id of the platform operators' organization. Only its ADMIN
   * keys may act for another organization (tenancyConfig.overrideOrganizationExternalId,
   * src/api/tenancy.ts); none: no key may.
   */
  operatorOrganization?: string;
}

export interface Caller {
  apiKeyId: string;
  /** The organization the request acts in: the key's own, or the one an operator overrides to. */
  organizationId: string;
  organizationExternalId: string;
  /** The roles the request may exercise (an operator acting for another organization: its key's roles without ADMIN). */
  roles: string[];
  /** Set when acting for another organization (tenancyConfig): the API key's own organization. */
  apiKeyOrganizationExternalId?: string;
}

export interface LedgerState {
  requestId: string;
  caller?: Caller;
  /** The roles the route needs (any one of them), set by mountRoutes: acting for another organization needs one held explicitly. */
  routeRoles?: readonly Role[];
  /** The caller acting for another organization, once src/api/tenancy.ts has allowed it for this request. */
  acting?: Caller;
  cluster: string;
  /** A handler's override of the route's success status (202 for respond-async, 503 when not ready). */
  status?: number;
}

export type LedgerContext = Koa.ParameterizedContext<LedgerState>;

declare module 'koa' {
  interface Request {
    /** The JSON body, parsed losslessly by the body middleware (src/api/middleware.ts). */
    body?: unknown;
  }
}
