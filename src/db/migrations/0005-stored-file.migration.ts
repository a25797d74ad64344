import { Migration } from '@mikro-orm/migrations';

/** Files the service keeps (instrument logos), served back by id. */
export class Migration0005StoredFile extends Migration {
  override name = '0005-stored-file';

  override up(): void {
    this.addSql(`
      create table stored_file (
        id uuid primary key,
        organization_id uuid not null references organization(id),
        file_name text,
        content_type text not null,
        size integer not null,
        sha256 text not null,
        bytes bytea not null,
        created_at timestamptz not null
      );
    `);
  }
}
