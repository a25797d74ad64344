/** The single-record read every resource has: look the record up within the acting tenant, then present it. */
import type * as t from 'io-ts';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Account } from '../../db/entities';
import { findAccountByLookup, type TenantScope } from '../../db/repositories/accounts.repository';
import { notFound } from '../../domain/errors';
import type { AccountLookupInput } from '../../domain/inputs/common.inputs';
import type { Role } from '../../domain/roles';
import type { ApiDeps, Caller, LedgerContext } from '../context';
import { readRoute, type RouteSpec } from '../route';
import { actingScope } from '../tenancy';

/** What a single read's body always carries: the tenant to act for. */
interface ActingBody {
  tenancyConfig?: { overrideOrganizationExternalId?: string };
}

/** Where a single read runs: its request, EntityManager, acting caller and tenant scope. */
export interface SingleRead<B> {
  ctx: LedgerContext;
  em: EntityManager;
  caller: Caller;
  scope: TenantScope;
  body: B;
}

export interface SingleRouteSpec<B, F, R> {
  operationId: string;
  path: string;
  tag: string;
  summary: string;
  /** READ unless said. */
  role?: Role;
  body: t.Mixed & t.Decoder<unknown, B>;
  response: t.Mixed & t.Decoder<unknown, R>;
  /** The record the body names; fails with the lookup's NOT_FOUND (or VALIDATION_ERROR) before anything is presented. */
  find: (read: SingleRead<B>) => Promise<F>;
  /** The answer: the record, with whatever it shows beside it (read from the database or the network). */
  present: (found: F, read: SingleRead<B>) => R | Promise<R>;
}

/** A POST read answering 200; as idempotent as its find and present, which only read. */
export function singleRoute<B extends ActingBody, F, R>(deps: ApiDeps, spec: SingleRouteSpec<B, F, R>): RouteSpec<B, R> {
  return readRoute(spec, {
    role: spec.role,
    body: spec.body,
    response: spec.response,
    async handler(ctx, body) {
      const read = { ctx, body, ...(await actingScope(ctx, deps, body.tenancyConfig)) };
      return spec.present(await spec.find(read), read);
    },
  });
}

/** The single reads of one kind of record: the same body names it and `find` looks it up; each read adds what it answers. */
export function singleReadsOf<B extends ActingBody, F>(
  deps: ApiDeps,
  body: SingleRouteSpec<B, F, unknown>['body'],
  find: SingleRouteSpec<B, F, unknown>['find'],
) {
  return <R>(spec: Omit<SingleRouteSpec<B, F, R>, 'body' | 'find'>) => singleRoute(deps, { ...spec, body, find });
}

/**
 * The record kept of an account the body names at `field` (a durable nonce account, a loan by its
 * escrow): `record` reads it; 404 at `field` when the account is not `what`.
 */
export async function recordOfAccount<T>(
  { em, scope }: Pick<SingleRead<unknown>, 'em' | 'scope'>,
  lookup: AccountLookupInput,
  field: string,
  what: string,
  record: (account: Account) => Promise<T | null>,
): Promise<T> {
  const account = await findAccountByLookup(em, scope, lookup, field);
  const found = await record(account);
  if (!found) throw notFound(field, `account ${account.address} is not ${what}`);
  return found;
}
