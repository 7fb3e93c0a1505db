import { Migration } from '@mikro-orm/migrations';

export class Migration20261125144121_EmailSentAtIndex extends Migration {
  override name = 'Migration20261125144121_EmailSentAtIndex';

  override up(): void | Promise<void> {
    this.addSql(`create index "email_recipients_sent_at" on "email_recipients" ("sent_at") where "sent_at" is not null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "email_recipients_sent_at";`);
  }
}
