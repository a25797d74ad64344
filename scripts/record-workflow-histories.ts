/**
 * Records the workflow histories that test/integration/workflow-replay.test.ts replays against the
 * current workflow code: a simple write, a write held for approval and approved, a write waiting for
 * a signature and cancelled, a write resting at SIGNED then submitted, a multi-part write, a refused
 * write (completed with its refusal since `write-refusal-completes`), and a loan's own workflow taking
 * its movements as updates (repay in part, refinance, repay all).
 *
 *   npx tsx scripts/record-workflow-histories.ts <label> [name …]    (e.g. the release: 0.1.0; names: only those)
 *
 * Run it when a release changes the workflows, and keep the files of earlier releases: workflows they
 * started may still be open (approvals wait a day, nonce writes for days), and a change that cannot
 * replay them must go behind patched() (docs/write-engine.md, "Changing a workflow").
 */
import fs from 'node:fs';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { temporal as proto } from '@temporalio/proto';
import { startTemporalDevServer } from '../dev/temporal/dev-server';
import { loanWorkflowId } from '../src/domain/loan-lifecycle';
import { startStack } from '../test/support/stack';
import { Loan, Organization } from '../src/db/entities';
import { writeWorkflowId } from '../src/domain/write';

type Ref = { onchainId: string; offchainId: string };

async function main(label: string, only: string[]) {
  const temporal = await startTemporalDevServer({ port: 0, ui: false, log: () => {} });
  process.env.TEMPORAL_ADDRESS = temporal.address;
  process.env.TEMPORAL_NAMESPACE = temporal.namespace;
  const stack = await startStack();
  const client = new Client({ connection: await Connection.connect({ address: temporal.address }), namespace: temporal.namespace });
  const call = async (method: string, route: string, body: unknown, expected: number[]) => {
    const answer = await stack.call(method, route, body);
    if (!expected.includes(answer.status)) throw new Error(`${method} ${route}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body;
  };
  const account = async (itemData: Record<string, unknown>): Promise<Ref> => (await call('POST', '/api/v1/accounts', { itemData }, [201])).newAccount;
  const transfer = (source: Record<string, unknown>, destination: Ref, svmTransactionConfig: Record<string, unknown> = {}) =>
    call(
      'POST',
      '/api/v1/accounts/transfer-network-currency',
      { itemData: { source, destination: { offchainId: destination.offchainId }, value: { lamports: '1000' } }, svmTransactionConfig },
      [201, 202],
    );
  const idOf = (answer: { offchainId?: string; transaction?: { offchainId: string } }) => answer.offchainId ?? answer.transaction!.offchainId;
  const workflowOf = async (transaction: string) =>
    (await call('POST', '/api/v1/transactions/single', { itemData: { transaction: { offchainId: transaction } } }, [200])).workflowId as string;
  const recorded: Record<string, string> = {};
  const keep = async (name: string, transaction: string) => {
    const handle = client.workflow.getHandle(await workflowOf(transaction));
    await handle.result().catch(() => undefined);
    recorded[name] = handle.workflowId;
  };

  try {
    const created = await call('POST', '/api/v1/accounts', { itemData: { managed: true, canPayFees: true, seed: { amount: 2 } } }, [201]);
    const wallet: Ref = created.newAccount;
    await keep('create-account', created.svmTransaction.offchainId);
    const vault = await account({ managed: true });

    // The stack's own key (it holds APPROVE) is the approver.
    const approverKeyId = (await stack.runtime.orm.em.fork().getConnection().execute('select id from api_key order by created_at limit 1'))[0].id as string;
    const held = await account({
      managed: true,
      seed: { amount: 2 },
      networkCurrencyDebitLimits: [
        { destination: 'ANY', maxAllowedDebit: { limitType: 'PER_TRANSACTION', limitAmount: 0.000000001, approversForOverride: [approverKeyId] } },
      ],
    });
    const waiting = idOf(await transfer({ offchainId: held.offchainId }, vault, { feePayer: { offchainId: wallet.offchainId } }));
    const approval = (await call('POST', '/api/v1/approvals/bulk', { itemQuery: { limit: 10 } }, [200])).items.find(
      (a: { transaction: { offchainId: string } }) => a.transaction.offchainId === waiting,
    );
    await call('PATCH', '/api/v1/approvals/approve', { itemData: { approval: { offchainId: approval.offchainId } } }, [200]);
    await keep('approved-transfer', waiting);

    const unsigned = idOf(await transfer({ offchainId: wallet.offchainId, autoSign: false }, vault));
    await call('PATCH', '/api/v1/transactions/cancel', { itemData: { transaction: { offchainId: unsigned } } }, [200]);
    await keep('cancelled-signature-wait', unsigned);

    const resting = idOf(await transfer({ offchainId: wallet.offchainId }, vault, { submitTransaction: false }));
    await call('POST', '/api/v1/transactions/submit', { itemData: { transaction: { offchainId: resting } } }, [200]);
    await keep('submitted-after-signed', resting);

    // Refused in lookup (the fee payer does not exist): no record to find it by, so by its key.
    const refusedKey = `refused-${Date.now()}`;
    const refused = await stack.call(
      'POST',
      '/api/v1/accounts',
      { itemData: { managed: true }, svmTransactionConfig: { feePayer: { offchainId: '00000000-0000-4000-8000-000000000000' } } },
      { headers: { 'Idempotency-Key': refusedKey } },
    );
    if (refused.status !== 404) throw new Error(`the refused write answered ${refused.status} ${JSON.stringify(refused.body)}`);
    const organization = await stack.runtime.orm.em.fork().findOneOrFail(Organization, { externalId: stack.organizationExternalId });
    recorded['refused-write'] = writeWorkflowId('CREATE_ACCOUNT', { id: organization.id, externalId: organization.externalId }, refusedKey);

    const nonces = await call(
      'POST',
      '/api/v1/durable-nonce-accounts',
      {
        itemData: { nonceAccount: {}, numberOfNonceAccounts: 5, nonceAuthority: { offchainId: wallet.offchainId } },
        svmTransactionConfig: { feePayer: { offchainId: wallet.offchainId } },
      },
      [201],
    );
    await keep('multi-part-nonce-accounts', nonces.transactions[0].offchainId);

    // A loan whose movements pass through its workflow as updates (docs/loans.md); repaid, its workflow ends.
    const authority = await account({ managed: true, offchainReferences: { type: 'TOKEN_MANAGEMENT_AUTHORITY' } });
    const usd: Ref = (
      await call(
        'POST',
        '/api/v1/financial-instruments',
        {
          itemData: {
            version: 'SPL',
            onchainData: { decimals: 6 },
            mintAuthority: { offchainId: authority.offchainId },
            mintAccount: { offchainReferences: { newAlId: { financialInstrumentType: 'STABLECOIN' } } },
          },
        },
        [201],
      )
    ).newFinancialInstrument;
    const at = (owner: Ref) => ({ owner: { offchainId: owner.offchainId }, financialInstrument: { onchainId: usd.onchainId } });
    const mint = async (owner: Ref, amount: number) => {
      await call('POST', '/api/v1/positions', { itemData: { positionToInitialize: at(owner) } }, [200, 201]);
      await call('POST', '/api/v1/positions/mint', { itemData: { mintTo: at(owner), value: { amount } } }, [200, 201]);
    };
    const lender = await account({ managed: true });
    await mint(lender, 100);
    const strategy: Ref = (
      await call(
        'POST',
        '/api/v1/loans/strategies',
        {
          itemData: {
            strategy: {},
            lender: { offchainId: lender.offchainId },
            principal: { financialInstrument: { onchainId: usd.onchainId } },
            collateral: [{ financialInstrument: { onchainId: usd.onchainId }, apy: [100_000, 200_000], loanToValueRatio: 800_000, liquidationRatio: 900_000 }],
          },
        },
        [201],
      )
    ).newLoanStrategy;
    await call(
      'POST',
      '/api/v1/positions/transfer',
      { itemData: { source: at(lender), destination: at(strategy), value: { amount: 100 }, initializeDestinationPositionIfNeeded: true } },
      [200, 201],
    );
    const borrower = await account({ managed: true, canPayFees: true, seed: { amount: 1 } });
    await mint(borrower, 40);
    const svmTransactionConfig = { feePayer: { offchainId: borrower.offchainId } };
    const loan = await call(
      'POST',
      '/api/v1/loans',
      {
        itemData: {
          defiProtocol: 'LEDGER_ESCROW',
          protocolDetails: { loanStrategyAddress: strategy.onchainId, expectedLoanValues: { expectedApy: 100_000, expectedLqt: [900_000] }, durationIndex: 0 },
          itemsToBorrow: [{ positionLookup: at(borrower), value: { amount: 10 } }],
          itemsToPledge: [{ positionLookup: at(borrower), value: { amount: 20 } }],
        },
        svmTransactionConfig,
      },
      [201],
    );
    const escrow = { onchainId: loan.newLoan.escrow.onchainId as string };
    await call(
      'PATCH',
      '/api/v1/loans/repay',
      { itemData: { defiProtocol: 'LEDGER_ESCROW', escrow, itemsToRepay: [{ positionLookup: at(borrower), value: { amount: 1 } }] }, svmTransactionConfig },
      [200],
    );
    await call('PATCH', '/api/v1/loans/refinance', { itemData: { defiProtocol: 'LEDGER_ESCROW', escrow, durationIndex: 1 }, svmTransactionConfig }, [200]);
    await call(
      'PATCH',
      '/api/v1/loans/repay',
      { itemData: { defiProtocol: 'LEDGER_ESCROW', escrow, itemsToRepay: [{ positionLookup: at(borrower), repayAll: true }] }, svmTransactionConfig },
      [200],
    );
    const organizationId = (await stack.runtime.orm.em.fork().findOneOrFail(Loan, { id: loan.newLoan.offchainId })).organizationId;
    const loanWorkflow = client.workflow.getHandle(loanWorkflowId({ id: organizationId, externalId: stack.organizationExternalId }, escrow.onchainId));
    await loanWorkflow.result();
    recorded['loan-movements'] = loanWorkflow.workflowId;

    // As the History proto's bytes: JSON histories do not load here (two protobufjs copies in the tree).
    const dir = path.join(__dirname, '../test/fixtures/workflow-histories');
    for (const [name, workflowId] of Object.entries(recorded)) {
      if (only.length && !only.includes(name)) continue;
      const history = await client.workflow.getHandle(workflowId).fetchHistory();
      fs.writeFileSync(path.join(dir, `${label}-${name}.pb`), proto.api.history.v1.History.encode(history).finish());
      console.log(`recorded ${label}-${name}.pb (${history.events?.length} events)`);
    }
  } finally {
    await client.connection.close();
    await stack.close();
    await temporal.close();
  }
}

const label = process.argv[2];
if (!label) {
  console.error('usage: npx tsx scripts/record-workflow-histories.ts <label>');
  process.exit(2);
}
main(label, process.argv.slice(3)).catch((error) => {
  console.error(error);
  process.exit(1);
});
