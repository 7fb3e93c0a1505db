import { Migration } from '@mikro-orm/migrations';

/** Signed-in devices: one row per session, named in its token, so an admin sees and ends them one by one. */
export class Migration20261128165228_UserSessions extends Migration {
  override name = 'Migration20261128165228_UserSessions';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "user_sessions" ("id" uuid not null, "user_id" uuid not null, "token_version" int not null, "user_agent" varchar(300) null, "ip" varchar(45) null, ` +
        `"created_at" timestamptz not null, "last_seen_at" timestamptz not null, "expires_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "user_sessions_user_id_index" on "user_sessions" ("user_id");`);
    this.addSql(`create index "user_sessions_expires_at_index" on "user_sessions" ("expires_at");`);
    this.addSql(
      `alter table "user_sessions" add constraint "user_sessions_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "user_sessions" cascade;`);
  }
}
