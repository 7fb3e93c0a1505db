import { Migration } from '@mikro-orm/migrations';

export class Migration20261128073526_WhatsAppUnreadIndex extends Migration {
  override name = 'Migration20261128073526_WhatsAppUnreadIndex';

  override up(): void | Promise<void> {
    this.addSql(`create index "wa_conversations_unread" on "wa_conversations" ("unread_count") where "status" = 'open' and "unread_count" > 0;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "wa_conversations_unread";`);
  }
}
