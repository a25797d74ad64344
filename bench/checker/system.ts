/**
 * The system under test as one client sees it: its operations as HTTP requests (the careful client,
 * one idempotency key per write), and its objects read back through the API (onchain and offchain)
 * and straight from the chain with @solana/kit, independently of the service.
 */
import { address, createSolanaRpc, getBase64Encoder, type Rpc, type SolanaRpcApi } from '@solana/kit';
import { getMintDecoder } from '@solana-program/token';
import { outcomeOf, transactionIds, type Answer } from './answers';
import type { Attempt, Client } from './client';
import type { Outcome } from './model';
import type { Operation, Rest } from './operations';
import type { ClientSystem, Observation, Performed } from './runner';
import type { Tenant } from './services';

export type Ref = { offchainId: string; onchainId: string };

/** The real ids behind a client's object names. A position and its owner account share a name. */
export interface Registry {
  mint: string;
  accounts: Record<string, Ref>;
  /** Token account address of each position, learnt at its first read. */
  tokenAccounts: Record<string, string>;
  loans: Record<string, { escrow: string }>;
  writes: Record<string, { method: string; route: string; body: unknown; offchainId?: string; signature?: string }>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class HttpSystem implements ClientSystem {
  readonly rpc: Rpc<SolanaRpcApi>;
  readonly registry: Registry = { mint: '', accounts: {}, tokenAccounts: {}, loans: {}, writes: {} };

  constructor(
    readonly client: Client,
    readonly tenant: Tenant,
    nodeUrl: string,
    private readonly patienceMs: number,
    /** The events of a write's workflow, for a divergence's report. */
    private readonly workflowEvents?: (workflowId: string) => Promise<string[]>,
  ) {
    this.rpc = createSolanaRpc(nodeUrl);
  }

  /** The position lookup of `name`'s position of the instrument. */
  at(name: string, extra: Record<string, unknown> = {}) {
    return { owner: { offchainId: this.ref(name).offchainId, ...extra }, financialInstrument: { onchainId: this.registry.mint } };
  }

  ref(name: string): Ref {
    const ref = this.registry.accounts[name];
    if (!ref) throw new Error(`no account ${name}`);
    return ref;
  }

  /** Sends a write until its answer is definite (`rests`: a resting answer counts); keeps its ids for later. */
  async write(
    method: string,
    route: string,
    body: unknown,
    key: string,
    attempt: (a: Attempt) => void,
    rests = true,
  ): Promise<{ outcome: Outcome; answer: Answer }> {
    const answer = await this.client.until(method, route, body, (a) => outcomeOf(a, rests) !== undefined, attempt, { key });
    const ids = transactionIds(answer.body);
    const known = this.registry.writes[key];
    this.registry.writes[key] = { method, route, body, offchainId: ids.offchainId ?? known?.offchainId, signature: ids.signature ?? known?.signature };
    return { outcome: outcomeOf(answer, rests)!, answer };
  }

  /** Sends the request of a write made earlier again, with its key: what it answers now. */
  private again(key: string, attempt: (a: Attempt) => void): Promise<{ outcome: Outcome }> {
    const w = this.registry.writes[key]!;
    return this.write(w.method, w.route, w.body, key, attempt, false);
  }

  private config(op: { lifetime: string; rest: Rest }) {
    return {
      ...(op.lifetime === 'DURABLE_NONCE' ? { messageLifetimeStrategy: 'DURABLE_NONCE' } : {}),
      ...(op.rest === 'SIGNED' ? { submitTransaction: false } : {}),
    };
  }

  async perform(op: Operation, attempt: (a: Attempt) => void): Promise<Performed> {
    const post = async (route: string, body: unknown, method = 'POST') => ({ final: (await this.write(method, route, body, op.key, attempt)).outcome });
    const awaited = (rest: Rest) => (rest === 'AWAITING_SIGNATURES' ? { autoSign: false } : {});
    switch (op.kind) {
      case 'create-account': {
        const done = await this.write('POST', '/api/v1/accounts', { itemData: { managed: true, seed: { lamports: String(op.seed) } } }, op.key, attempt);
        if (done.outcome.type === 'landed') this.registry.accounts[op.wallet] = done.answer.body.newAccount;
        return { final: done.outcome };
      }
      case 'transfer-network-currency':
        return post('/api/v1/accounts/transfer-network-currency', {
          itemData: {
            source: { offchainId: this.ref(op.from).offchainId, ...awaited(op.rest) },
            destination: { offchainId: this.ref(op.to).offchainId },
            value: { lamports: String(op.lamports) },
          },
          svmTransactionConfig: this.config(op),
        });
      case 'mint':
        return post('/api/v1/positions/mint', {
          itemData: { mintTo: this.at(op.to), value: { lamports: String(op.units) } },
          svmTransactionConfig: this.config(op),
        });
      case 'burn':
        return post('/api/v1/positions/burn', {
          itemData: { burnFrom: this.at(op.from, awaited(op.rest)), value: { lamports: String(op.units) } },
          svmTransactionConfig: this.config(op),
        });
      case 'transfer':
        return post('/api/v1/positions/transfer', {
          itemData: { source: this.at(op.from, awaited(op.rest)), destination: this.at(op.to), value: { lamports: String(op.units) } },
          svmTransactionConfig: this.config(op),
        });
      case 'trade':
        return post('/api/v1/positions/trade', {
          itemData: {
            operations: [
              { mint: { mintTo: this.at(op.into), value: { lamports: String(op.mintUnits) } } },
              { transfer: { source: this.at(op.into), destination: this.at(op.to), value: { lamports: String(op.transferUnits) } } },
            ],
          },
        });
      case 'transfer-to-unknown':
        return post('/api/v1/positions/transfer', {
          itemData: {
            source: this.at(op.from),
            destination: { owner: { offchainId: op.owner }, financialInstrument: { onchainId: this.registry.mint } },
            value: { lamports: String(op.units) },
          },
        });
      case 'malformed-transfer':
        return post('/api/v1/positions/transfer', { itemData: { source: this.at(op.from), destination: this.at(op.to), value: { lamports: op.value } } });
      case 'approve':
      case 'reject':
        return { primary: await this.decide(op.kind, op.write, attempt), final: (await this.again(op.write, attempt)).outcome };
      case 'cancel':
      case 'submit':
      case 'sign': {
        const transaction = { offchainId: this.registry.writes[op.write]!.offchainId };
        const [method, route] = {
          cancel: ['PATCH', '/api/v1/transactions/cancel'],
          submit: ['POST', '/api/v1/transactions/submit'],
          sign: ['POST', '/api/v1/transactions/sign'],
        }[op.kind];
        const answer = await this.client.until(method!, route!, { itemData: { transaction } }, (a) => outcomeOf(a, false) !== undefined, attempt);
        return { primary: outcomeOf(answer, false)!, final: (await this.again(op.write, attempt)).outcome };
      }
      case 'create-loan': {
        const done = await this.write(
          'POST',
          '/api/v1/loans',
          {
            itemData: {
              defiProtocol: 'LEDGER_ESCROW',
              protocolDetails: {
                loanStrategyAddress: this.ref('V').onchainId,
                expectedLoanValues: { expectedApy: 0, expectedLqt: [900_000] },
                durationIndex: 0,
              },
              itemsToBorrow: [{ positionLookup: this.at('B'), value: { lamports: String(op.borrow) } }],
              itemsToPledge: [{ positionLookup: this.at('B'), value: { lamports: String(op.pledge) } }],
            },
            svmTransactionConfig: { feePayer: { offchainId: this.ref('B').offchainId } },
          },
          op.key,
          attempt,
        );
        if (done.outcome.type === 'landed') {
          const escrow = done.answer.body.newLoan.escrow as Ref;
          this.registry.accounts[`E${op.loan.slice(1)}`] = escrow;
          this.registry.loans[op.loan] = { escrow: escrow.onchainId };
        }
        return { final: done.outcome };
      }
      case 'repay':
        return post(
          '/api/v1/loans/repay',
          {
            itemData: {
              defiProtocol: 'LEDGER_ESCROW',
              escrow: { onchainId: this.registry.loans[op.loan]!.escrow },
              itemsToRepay: [{ positionLookup: this.at('B'), ...(op.units === 'all' ? { repayAll: true } : { value: { lamports: String(op.units) } }) }],
            },
            svmTransactionConfig: { feePayer: { offchainId: this.ref('B').offchainId } },
          },
          'PATCH',
        );
      case 'close-loan':
        return post(
          '/api/v1/loans/close',
          {
            itemData: { defiProtocol: 'LEDGER_ESCROW', escrow: { onchainId: this.registry.loans[op.loan]!.escrow } },
            svmTransactionConfig: { feePayer: { offchainId: this.ref('B').offchainId } },
          },
          'PATCH',
        );
    }
  }

  /**
   * Approve or Reject by the approver. A decision is not idempotent (a second one by the same key is
   * 409): a 409 after an attempt that got no answer is resolved by reading the approval.
   */
  private async decide(kind: 'approve' | 'reject', key: string, attempt: (a: Attempt) => void): Promise<Outcome> {
    const approval = await this.approvalOf(key, attempt);
    if (!approval) return { type: 'other', what: 'no approval listed for the write' };
    let unanswered = false;
    const answer = await this.client.until(
      'PATCH',
      `/api/v1/approvals/${kind}`,
      { itemData: { approval: { offchainId: approval.offchainId } } },
      (a) => {
        const definite = outcomeOf(a, false) !== undefined;
        if (!definite) unanswered = true;
        return definite;
      },
      attempt,
      { apiKey: this.tenant.approverKey },
    );
    const outcome = outcomeOf(answer, false)!;
    if (outcome.type === 'refused' && outcome.http === 409 && unanswered) {
      const now = await this.approvalOf(key, attempt);
      const ours = now?.decisions?.some((d: { apiKeyId: string }) => d.apiKeyId === this.tenant.approverId);
      if (ours && (now.status === 'APPROVED' || now.status === 'REJECTED')) return { type: 'decided', status: now.status };
    }
    return outcome;
  }

  private async approvalOf(key: string, attempt: (a: Attempt) => void): Promise<any> {
    const transaction = this.registry.writes[key]!.offchainId;
    const page = await this.client.read(
      '/api/v1/approvals/bulk',
      { itemQuery: { filter: [{ fieldName: 'transactionOffchainId', filterValues: [{ filterType: 'EQUALS', valueString: transaction }] }] } },
      attempt,
    );
    return page.body?.items?.[0];
  }

  /** A chain read, asked again while the node is away; `absent` answers a missing account. */
  private async chain<T>(read: () => Promise<T>, absent: T): Promise<T> {
    const giveUpAt = Date.now() + this.patienceMs;
    for (;;) {
      try {
        return await read();
      } catch (error) {
        if (
          /could not find account|Invalid param: could not find/i.test(
            String((error as Error).message) + JSON.stringify((error as { context?: unknown }).context ?? ''),
          )
        )
          return absent;
        if (Date.now() > giveUpAt) throw error;
        if (process.env.CHAOS_DEBUG) console.log(`[debug] chain read: ${(error as Error).message}`);
        await sleep(500);
      }
    }
  }

  async explain(object: string): Promise<string[]> {
    if (!object.startsWith('transaction:')) return [];
    const key = object.slice('transaction:'.length);
    const offchainId = this.registry.writes[key]?.offchainId;
    if (!offchainId) return [];
    const { body } = await this.client.read('/api/v1/transactions/single', { itemData: { transaction: { offchainId } } });
    const history = (body?.statusHistory ?? []).map(
      (h: { status: string; at: string; signature?: string }) => `${h.at.slice(11, 23)} ${h.status}${h.signature ? ` ${h.signature.slice(0, 12)}…` : ''}`,
    );
    const events =
      body?.workflowId && this.workflowEvents ? await this.workflowEvents(body.workflowId).catch((error) => [`(${(error as Error).message})`]) : [];
    return [
      `${object} (${offchainId}, ${body?.operation}): ${body?.status}, success ${body?.success}, signature ${body?.onchainId ?? 'none'}, error ${JSON.stringify(body?.errorMessage ?? null)}`,
      `   status history: ${history.join(', ')}`,
      ...(events.length ? [`   workflow ${body.workflowId}: ${events.join(', ')}`] : []),
    ];
  }

  async read(object: string, attempt: (a: Attempt) => void): Promise<Observation[]> {
    const [kind, name] = [object.slice(0, object.indexOf(':')), object.slice(object.indexOf(':') + 1)];
    const failed = (fields: string[], answer: Answer) =>
      fields.map((field) => ({ field, source: 'api', value: `answer ${answer.status} ${answer.body?.errors?.[0]?.code ?? ''}`.trim() }));
    if (object === 'supply') {
      const answer = await this.client.read(
        '/api/v1/financial-instruments/circulating-supply',
        { itemData: { financialInstrument: { onchainId: this.registry.mint } } },
        attempt,
      );
      // The mint account itself (the local node has no getTokenSupply).
      const onchain = await this.chain<string>(async () => {
        const { value } = await this.rpc.getAccountInfo(address(this.registry.mint), { commitment: 'confirmed', encoding: 'base64' }).send();
        return value ? String(getMintDecoder().decode(getBase64Encoder().encode(value.data[0])).supply) : 'absent';
      }, 'absent');
      return [
        ...(answer.status === 200 ? [{ field: 'supply', source: 'api', value: String(answer.body.circulatingSupply.lamports) }] : failed(['supply'], answer)),
        { field: 'supply', source: 'chain', value: onchain },
      ];
    }
    if (object === 'nonces') {
      const answer = await this.client.read(
        '/api/v1/durable-nonce-accounts/bulk',
        { itemQuery: { filter: [{ fieldName: 'isInUse', filterValues: [{ filterType: 'EQUALS', valueBoolean: true }] }] } },
        attempt,
      );
      return answer.status === 200 ? [{ field: 'inUse', source: 'api', value: String(answer.body.count) }] : failed(['inUse'], answer);
    }
    if (kind === 'wallet' || kind === 'lamports') {
      const ref = this.registry.accounts[name];
      if (!ref) return [];
      const answer = await this.client.read('/api/v1/accounts/balance', { itemData: { account: { offchainId: ref.offchainId } } }, attempt);
      const onchain = await this.chain(
        async () => String((await this.rpc.getBalance(address(ref.onchainId), { commitment: 'confirmed' }).send()).value),
        'absent',
      );
      const api =
        answer.status === 200
          ? [
              { field: 'lamports', source: 'api onchain', value: String(answer.body.onchain.balance.lamports) },
              { field: 'lamports', source: 'api offchain', value: String(answer.body.offchain.balance.lamports) },
            ]
          : failed(['lamports'], answer);
      return [...api, { field: 'lamports', source: 'chain', value: onchain }];
    }
    if (kind === 'position') {
      if (!this.registry.accounts[name]) return [];
      const answer = await this.client.read('/api/v1/positions/balance', { itemData: { position: this.at(name) } }, attempt);
      if (answer.status === 200 && answer.body.position?.onchain?.id) this.registry.tokenAccounts[name] ??= answer.body.position.onchain.id;
      const tokenAccount = this.registry.tokenAccounts[name];
      const api =
        answer.status === 200
          ? [
              { field: 'units', source: 'api onchain', value: String(answer.body.onchain.balance.lamports) },
              { field: 'units', source: 'api offchain', value: String(answer.body.offchain.balance.lamports) },
            ]
          : failed(['units'], answer);
      const chain = tokenAccount
        ? [
            {
              field: 'units',
              source: 'chain',
              value: await this.chain<string>(
                async () => (await this.rpc.getTokenAccountBalance(address(tokenAccount), { commitment: 'confirmed' }).send()).value.amount,
                '0',
              ),
            },
          ]
        : [];
      return [...api, ...chain];
    }
    if (kind === 'loan') {
      const loan = this.registry.loans[name];
      if (!loan) return [];
      const answer = await this.client.read('/api/v1/loans/single', { itemData: { escrow: { onchainId: loan.escrow } } }, attempt);
      if (answer.status !== 200) return failed(['status'], answer);
      const b = answer.body;
      return [
        { field: 'status', source: 'api', value: String(b.status) },
        { field: 'principalDue', source: 'api', value: String(b.borrowedItems?.[0]?.principalDue) },
        { field: 'pledged', source: 'api', value: String(b.pledgedItems?.[0]?.pledgedAmount ?? 0) },
      ];
    }
    if (kind === 'transaction') {
      const offchainId = this.registry.writes[name]?.offchainId;
      if (!offchainId) return [];
      const answer = await this.client.read('/api/v1/transactions/status', { itemData: { transaction: { offchainId } } }, attempt);
      return answer.status === 200 ? [{ field: 'status', source: 'api', value: String(answer.body.status) }] : failed(['status'], answer);
    }
    return [];
  }
}
