import { Migration } from '@mikro-orm/migrations';

export class Migration20261128112007_AgendaFeedTokenVersion extends Migration {
  override name = 'Migration20261128112007_AgendaFeedTokenVersion';

  override up(): void | Promise<void> {
    this.addSql(`alter table "agenda_feed_tokens" add "token_version" int null;`);
    // Addresses made before this keep working until their owner next signs out everywhere or changes the password.
    this.addSql(`update "agenda_feed_tokens" f set "token_version" = u."token_version" from "users" u where u."id" = f."user_id";`);
    this.addSql(`alter table "agenda_feed_tokens" alter column "token_version" set not null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "agenda_feed_tokens" drop column "token_version";`);
  }
}
