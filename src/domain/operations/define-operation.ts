/**
 * One declaration per write operation (docs/architecture.md): everything about it that is not I/O.
 * The registry, the write routes, their request bodies and the OpenAPI document derive from these;
 * the handler table (src/activities/operations) is a mapped type over them the compiler checks.
 */
import type * as t from 'io-ts';
import type { OperationExample } from '../examples/operation-examples';
import type { CreateAccountPermissions } from './accounts/create-account.rules';

/** What a request's own rules may depend on besides the request: the caller's permissions. */
export type ValidationContext = CreateAccountPermissions;

/** The route a client calls the operation by; the API derives it (body, OpenAPI entry) from this. */
export interface OperationRoute {
  /** The spec's operation name in camelCase: unique; a generated client's method name. */
  operationId: string;
  method: 'post' | 'patch';
  path: string;
  tag: string;
  summary: string;
  successStatus: 200 | 201;
  /** The request body's schema name in the OpenAPI document (`{itemData, svmTransactionConfig?, tenancyConfig?}`). */
  body: string;
  /** What a success answers (the presenter's type is checked against it). */
  response: t.Mixed;
  /** A request and its answer, shown in the document and decoded by the contract test. */
  example: OperationExample;
  /** Answer `{<answer>: reference, svmTransaction}`; default: the transaction result. */
  answer?: string;
  /** The write creates a record whose offchain id the API chooses once (a retry keeps it). */
  creates?: boolean;
  /** Further records the write creates, by role, each with an offchain id chosen once. */
  extraRecords?: readonly string[];
}

export interface OperationDeclaration<C extends t.Mixed = t.Mixed> {
  /** The itemData codec: what the API decodes and workflow history carries. */
  input: C;
  /** Rules on the request alone, run by the API before any lookup; throw VALIDATION_ERROR or FORBIDDEN naming the field. */
  validate?: (item: t.TypeOf<C>, context: ValidationContext) => void;
  /**
   * The operation's rules module (pure functions over the request and looked-up state, unit
   * tested), or why it needs none (the codec says everything).
   */
  rules: object | { none: string };
  /** How clients call it, or why no client does (run by a loan's or a data source's own workflow). */
  route: OperationRoute | { internal: string };
}

export const defineOperation = <C extends t.Mixed>(declaration: OperationDeclaration<C>): OperationDeclaration<C> => declaration;

/** The declaration of an operation whose rules are all in its codec. */
export const codecOnly = (why = 'its codec holds every rule on the request; lookups refuse what does not exist') => ({ none: why });
