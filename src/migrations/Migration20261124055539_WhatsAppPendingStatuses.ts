import { Migration } from '@mikro-orm/migrations';

export class Migration20261124055539_WhatsAppPendingStatuses extends Migration {

  override name = 'Migration20261124055539_WhatsAppPendingStatuses';

  override up(): void | Promise<void> {
    this.addSql(`create table "wa_pending_statuses" ("wamid" varchar(128) not null, "status" varchar(20) not null, "rank" smallint not null, "at" timestamptz not null, "error_code" int null, "error_title" varchar(200) null, "received_at" timestamptz not null, primary key ("wamid", "status"));`);
    this.addSql(`create index "wa_pending_statuses_received_at_index" on "wa_pending_statuses" ("received_at");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "wa_pending_statuses" cascade;`);
  }
}
