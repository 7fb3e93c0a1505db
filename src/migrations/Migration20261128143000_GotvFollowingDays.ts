import { Migration } from '@mikro-orm/migrations';

/** Polls open on later days too (Italy votes Sunday and Monday): the settings keep those days. */
export class Migration20261128143000_GotvFollowingDays extends Migration {
  override name = 'Migration20261128143000_GotvFollowingDays';

  override up(): void | Promise<void> {
    this.addSql(`alter table "gotv_settings" add "following_days" jsonb null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "gotv_settings" drop column "following_days";`);
  }
}
