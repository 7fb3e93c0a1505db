import { Migration } from '@mikro-orm/migrations';

export class Migration20261128103715_ErasedIdentifiers extends Migration {
  override name = 'Migration20261128103715_ErasedIdentifiers';

  override up(): void | Promise<void> {
    this.addSql(`create table "erased_identifiers" ("hash" varchar(64) not null, "kind" text not null, "erased_at" timestamptz not null, primary key ("hash"));`);
    this.addSql(`alter table "erased_identifiers" add constraint "erased_identifiers_kind_check" check ("kind" in ('document', 'phone', 'email'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "erased_identifiers" cascade;`);
  }
}
