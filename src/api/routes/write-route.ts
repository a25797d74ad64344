/**
 * Every write route is declared through this one builder: the body decoded (shape), the operation's
 * own rules on the request (the registry's `validate`), then `prepare` (what must change before it
 * enters workflow history: secrets sealed, imported keys checked), all before any lookup; then the acting caller
 * (tenancy), one `ledgerWrite` workflow, and its answer (the transaction result, `{<answer>:
 * {onchainId, offchainId}, svmTransaction}`, or the route's own; 202 when it runs on).
 */
import { randomUUID } from 'node:crypto';
import type { SvmTransactionConfigInput } from '../../domain/inputs/common.inputs';
import { validationError } from '../../domain/errors';
import { validateInput, type InputOf, type Operation } from '../../domain/operations/registry';
import { hasRole } from '../../domain/roles';
import type { ApiDeps, Caller, LedgerContext } from '../context';
import { route, type RouteSpec } from '../route';
import { actingCaller } from '../tenancy';
import type { StartWrite } from '../../client/write-client';
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

export interface WriteRouteSpec<B extends WriteBody> extends Omit<RouteSpec<B, any>, 'handler' | 'role' | 'write' | 'body'> {
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
  if (config?.submitTransaction !== undefined && config.submitTransaction !== own) throw validationError('itemData.submitTransaction', 'itemData.submitTransaction differs from svmTransactionConfig.submitTransaction; send one, or the same in both');
  return { ...config, submitTransaction: own };
}

export function writeRoute<B extends WriteBody>(deps: ApiDeps, spec: WriteRouteSpec<B>): RouteSpec<B> {
  const { operation, prepare, answer: how, creates, extraRecords, instead, start, ...rest } = spec;
  return route<B, any>({
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
