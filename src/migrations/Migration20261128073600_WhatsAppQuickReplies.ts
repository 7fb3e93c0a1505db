import { Migration } from '@mikro-orm/migrations';

export class Migration20261128073600_WhatsAppQuickReplies extends Migration {
  override name = 'Migration20261128073600_WhatsAppQuickReplies';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "wa_quick_replies" ("id" uuid not null, "shortcut" varchar(32) not null, "title" varchar(80) not null, "text" varchar(1024) not null, "created_by_id" uuid null, "updated_by_id" uuid null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`alter table "wa_quick_replies" add constraint "wa_quick_replies_shortcut_unique" unique ("shortcut");`);
    this.addSql(
      `alter table "wa_quick_replies" add constraint "wa_quick_replies_created_by_id_foreign" foreign key ("created_by_id") references "users" ("id") on update cascade on delete set null;`,
    );
    this.addSql(
      `alter table "wa_quick_replies" add constraint "wa_quick_replies_updated_by_id_foreign" foreign key ("updated_by_id") references "users" ("id") on update cascade on delete set null;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "wa_quick_replies" cascade;`);
  }
}
