import { Migration } from '@mikro-orm/migrations';

/** Compute units a landed transaction consumed (its meta's computeUnitsConsumed), shown by Fetch Transaction Details beside the fee it paid. */
export class Migration0016ComputeUnitsConsumed extends Migration {
  override name = '0016-compute-units-consumed';

  override up(): void {
    this.addSql(`alter table ledger_transaction add column compute_units_consumed bigint;`);
  }
}
