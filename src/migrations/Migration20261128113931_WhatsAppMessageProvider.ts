import { Migration } from '@mikro-orm/migrations';

/** Which provider took each message, so a simulator's "delivered" is never read as WhatsApp's. */
export class Migration20261128113931_WhatsAppMessageProvider extends Migration {
  override name = 'Migration20261128113931_WhatsAppMessageProvider';

  override up(): void | Promise<void> {
    this.addSql(`alter table "wa_messages" add "provider" varchar(20) null;`);
    // Messages the built-in simulator took before this column existed: its wamids say so.
    this.addSql(`update "wa_messages" set "provider" = 'simulator' where "wamid" like 'wamid.SIM%' and "direction" = 'out';`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "wa_messages" drop column "provider";`);
  }
}
