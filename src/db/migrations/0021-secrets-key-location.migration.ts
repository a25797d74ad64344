import { Migration } from '@mikro-orm/migrations';

/** A SECRETS-held key is recorded (address, organization, location, request key) without its secret, which stays in the secret store. */
export class Migration0021SecretsKeyLocation extends Migration {
  override name = '0021-secrets-key-location';

  override up(): void {
    this.addSql(`alter table custody_key alter column sealed_secret drop not null;`);
  }
}
