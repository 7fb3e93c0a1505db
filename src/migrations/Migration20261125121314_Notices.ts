import { Migration } from '@mikro-orm/migrations';

export class Migration20261125121314_Notices extends Migration {

  override name = 'Migration20261125121314_Notices';

  override up(): void | Promise<void> {
    this.addSql(`create table "notices" ("id" uuid not null, "key" varchar(300) not null, "contact_id" uuid not null, "purpose" varchar(60) not null, "channel" text null, "status" text not null, "reason" text null, "passed_over" jsonb not null default '[]', "message_ref" varchar(40) null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`alter table "notices" add constraint "notices_key_unique" unique ("key");`);
    this.addSql(`create index "notices_contact_id_id_index" on "notices" ("contact_id", "id");`);
    this.addSql(`create index "notices_purpose_id_index" on "notices" ("purpose", "id");`);

    this.addSql(`alter table "notices" add constraint "notices_contact_id_foreign" foreign key ("contact_id") references "contacts" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "notices" add constraint "notices_channel_check" check ("channel" in ('whatsapp', 'email'));`);
    this.addSql(`alter table "notices" add constraint "notices_status_check" check ("status" in ('queued', 'unreachable'));`);
    this.addSql(`alter table "notices" add constraint "notices_reason_check" check ("reason" in ('no_consent', 'no_address', 'template_missing', 'erased', 'suppressed'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "notices" cascade;`);
  }
}
