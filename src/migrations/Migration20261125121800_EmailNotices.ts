import { Migration } from '@mikro-orm/migrations';

export class Migration20261125121800_EmailNotices extends Migration {

  override name = 'Migration20261125121800_EmailNotices';

  override up(): void | Promise<void> {
    this.addSql(`create table "email_notices" ("id" bigserial primary key, "contact_id" uuid not null, "email" varchar(254) not null, "subject" varchar(300) not null, "text" text not null, "html" text null, "status" text not null, "attempts" smallint not null default 0, "next_attempt_at" timestamptz null, "claimed_at" timestamptz null, "sent_at" timestamptz null, "message_id" varchar(200) null, "last_error" varchar(200) null, "created_at" timestamptz not null);`);
    this.addSql(`create index "email_notices_contact_id_index" on "email_notices" ("contact_id");`);
    this.addSql(`create index "email_notices_queue" on "email_notices" ("id") where "status" = 'queued';`);
    this.addSql(`create index "email_notices_in_flight" on "email_notices" ("claimed_at") where "status" = 'sending';`);

    this.addSql(`alter table "email_notices" add constraint "email_notices_contact_id_foreign" foreign key ("contact_id") references "contacts" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "email_notices" add constraint "email_notices_status_check" check ("status" in ('queued', 'sending', 'sent', 'bounced', 'failed', 'in_doubt', 'skipped'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "email_notices" cascade;`);
  }
}
