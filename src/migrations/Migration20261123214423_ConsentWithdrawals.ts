import { Migration } from '@mikro-orm/migrations';

export class Migration20261123214423_ConsentWithdrawals extends Migration {

  override name = 'Migration20261123214423_ConsentWithdrawals';

  override up(): void | Promise<void> {
    this.addSql(`alter table "consents" add "action" text not null default 'given', add "evidence" varchar(500) null;`);
    this.addSql(`alter table "consents" add constraint "consents_action_check" check ("action" in ('given', 'withdrawn'));`);
    // Round 1 recorded email unsubscribes as consent rows with both channels' flags; they were withdrawals.
    this.addSql(`update "consents" set "action" = 'withdrawn', "evidence" = 'email unsubscribe link' where "source" = 'email_unsubscribe';`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "consents" drop constraint "consents_action_check";`);
    this.addSql(`alter table "consents" drop column "action", drop column "evidence";`);
  }

}
