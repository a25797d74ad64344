/**
 * Every write route is declared through this one builder: the body decoded (shape), the operation's
 * own rules on the request (the registry's `validate`), then `prepare` (what must change before it
 * enters workflow history: secrets sealed, imported keys checked), all before any lookup; then the acting caller
 * (tenancy), one `ledgerWrite` workflow, and its answer (the transaction result, `{<answer>:
 * {onchainId, offchainId}, svmTransaction}`, or the route's own; 202 when it runs on).
 */
import { randomUUID } from 'node:crypto';
import type * as t from 'io-ts';
import { svmTransactionConfig, type SvmTransactionConfigInput } from '../../domain/inputs/common.inputs';
import { strictObject } from '../../domain/inputs/primitives';
import type { OperationDeclaration } from '../../domain/operations/define-operation';
import { tenancyConfig } from '../codecs/common.codecs';
import { validationError } from '../../domain/errors';
import { operationRegistry, validateInput, type InputOf, type Operation } from '../../domain/operations/registry';
import { hasRole } from '../../domain/roles';
import type { ApiDeps, Caller, LedgerContext } from '../context';
import { route, type RouteSpec } from '../route';
import { actingCaller } from '../tenancy';
import type { StartWrite } from '../../client/write-client';
import { throughLoanWorkflow } from '../../client/loan-movements';
import { loanMovementOperations } from '../../domain/loan-lifecycle';
import { referenceAnswer, runWrite, transactionAnswer, type WriteAnswer, type WriteInput } from '../writes';

interface WriteBody {
  itemData: object;
  svmTransactionConfig?: SvmTransactionConfigInput;
  tenancyConfig?: { overrideOrganizationExternalId?: string };
}

/** What `prepare` may use: the authenticated caller (its roles) and the API's dependencies (the sealer). */
export interface PrepareContext {
  roles: readonly string[];
  deps: ApiDeps;
}

export interface WriteRouteSpec<B extends WriteBody> extends Omit<RouteSpec<B, unknown>, 'handler' | 'role' | 'write' | 'body'> {
  body: NonNullable<RouteSpec<B>['body']>;
  operation: Operation;
  /**
   * The request's form in workflow history (secrets sealed, imported keys checked), after the
   * registry's rules and before any lookup; returns the itemData the write carries (default: as
   * decoded). Throws VALIDATION_ERROR / FORBIDDEN naming the field.
   */
  prepare?: (itemData: B['itemData'], context: PrepareContext) => B['itemData'] | Promise<B['itemData']>;
  /**
   * The answer: the transaction result (default); a name, for `{<name>: reference, svmTransaction}`;
   * or the route's own, from the write's answer.
   */
  answer?: string | ((ctx: LedgerContext, answer: WriteAnswer, input: WriteInput) => unknown);
  /** The write creates a record whose offchain id is chosen here, once. */
  creates?: boolean;
  /** Further records the write creates, by role, each with an offchain id chosen here. */
  extraRecords?: readonly string[];
  /** Starts the write's run another way (loan movements go through the loan's workflow); default: the write's own workflow. */
  start?: StartWrite;
  /** Runs another write than the workflow for this body (Freeze/Unfreeze all positions); answers what the route answers. */
  instead?: (body: B) => ((ctx: LedgerContext, input: WriteInput) => Promise<unknown>) | undefined;
}

/**
 * Refinance Loan's own `itemData.submitTransaction` means `svmTransactionConfig.submitTransaction`
 * (docs/behaviour/conventions.md); the two given and different are 400.
 */
function withOwnSubmit(itemData: object, config: SvmTransactionConfigInput | undefined): SvmTransactionConfigInput | undefined {
  const own = (itemData as { submitTransaction?: unknown }).submitTransaction;
  if (typeof own !== 'boolean') return config;
  if (config?.submitTransaction !== undefined && config.submitTransaction !== own)
    throw validationError(
      'itemData.submitTransaction',
      'itemData.submitTransaction differs from svmTransactionConfig.submitTransaction; send one, or the same in both',
    );
  return { ...config, submitTransaction: own };
}

export function writeRoute<B extends WriteBody>(deps: ApiDeps, spec: WriteRouteSpec<B>): RouteSpec<B> {
  const { operation, prepare, answer: how, creates, extraRecords, instead, start, ...rest } = spec;
  return route<B, unknown>({
    ...rest,
    role: 'WRITE',
    write: true,
    async handler(ctx, body) {
      const roles = ctx.state.caller!.roles;
      validateInput(operation, body.itemData as InputOf<typeof operation>, { updateDebitApiKeys: hasRole(roles, deps.platformName, 'UPDATE_DEBIT_API_KEYS') });
      const itemData = prepare ? await prepare(body.itemData, { roles, deps }) : body.itemData;
      const caller: Caller = await actingCaller(ctx, deps, deps.orm.em.fork(), body.tenancyConfig);
      const input: WriteInput = {
        operation,
        caller,
        itemData,
        svmTransactionConfig: withOwnSubmit(itemData, body.svmTransactionConfig),
        idempotencyId: (itemData as { idempotencyId?: string }).idempotencyId,
        newRecordId: creates ? randomUUID() : undefined,
        extraRecordIds: extraRecords ? Object.fromEntries(extraRecords.map((role) => [role, randomUUID()])) : undefined,
        start,
      };
      const other = instead?.(body);
      if (other) return other(ctx, input);
      const answer = await runWrite(ctx, deps, input);
      if (typeof how === 'function') return how(ctx, answer, input);
      return how ? referenceAnswer(ctx, answer, how) : transactionAnswer(ctx, answer);
    },
  });
}

const bodies = new Map<string, { input: t.Mixed; body: t.Mixed }>();

/**
 * A write's request body: the operation's itemData beside the options every write takes. Operations
 * sharing a body (Pause and Unpause Financial Instrument) get the one codec, as the document names one
 * schema once; a name given to another input makes a new codec, which the document refuses.
 */
export function writeBody<C extends t.Mixed>(name: string, input: C) {
  const made = () => strictObject(name, { itemData: input }, { svmTransactionConfig, tenancyConfig });
  const known = bodies.get(name);
  if (known?.input === input) return known.body as ReturnType<typeof made>;
  const body = made();
  bodies.set(name, { input, body });
  return body;
}

type BodyOf<C extends t.Mixed> = {
  itemData: t.TypeOf<C>;
  svmTransactionConfig?: SvmTransactionConfigInput;
  tenancyConfig?: { overrideOrganizationExternalId?: string };
};

/** What only the API adds to a declared operation's route: steps that need its dependencies or the request. */
export type WriteHooks<C extends t.Mixed> = Pick<WriteRouteSpec<BodyOf<C>>, 'prepare' | 'start' | 'instead'> & {
  /** The route's own answer, from the write's answer (default: the declaration's). */
  answer?: (ctx: LedgerContext, answer: WriteAnswer, input: WriteInput) => unknown;
};

/**
 * The write routes of a family of operations, derived from their declarations (route, body,
 * response, example) with the API's hooks; operations run only by workflows have none.
 */
export function writeRoutes<F extends Record<string, OperationDeclaration>>(
  deps: ApiDeps,
  family: F,
  hooks: { [O in keyof F]?: WriteHooks<F[O]['input']> } = {},
): RouteSpec[] {
  return Object.entries(family).flatMap(([operation, { input, route: declared }]) => {
    if (!('operationId' in declared)) return [];
    const { body, example, answer, ...route } = declared;
    const hook: WriteHooks<t.Mixed> = hooks[operation] ?? {};
    return [
      writeRoute(deps, {
        ...route,
        examples: example,
        body: writeBody(body, input),
        operation: operation as Operation,
        answer: hook.answer ?? answer,
        prepare: hook.prepare,
        // A loan's movements go through its own workflow, one at a time (docs/loans.md).
        start: hook.start ?? (loanMovementOperations.includes(operation as Operation) ? throughLoanWorkflow : undefined),
        instead: hook.instead,
      }),
    ];
  });
}

/** The request body of a declared operation with a route (tests decode with it as the route does). */
export function writeBodyOf<O extends Operation>(operation: O): t.Type<BodyOf<(typeof operationRegistry)[O]['input']>, unknown, unknown> {
  const route = (operationRegistry[operation] as Partial<OperationDeclaration>).route;
  if (!route || !('operationId' in route)) throw new Error(`${operation} has no declared route`);
  return writeBody(route.body, operationRegistry[operation].input);
}
