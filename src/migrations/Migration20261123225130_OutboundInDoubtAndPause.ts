import { Migration } from '@mikro-orm/migrations';

export class Migration20261123225130_OutboundInDoubtAndPause extends Migration {

  override name = 'Migration20261123225130_OutboundInDoubtAndPause';

  override up(): void | Promise<void> {
    this.addSql(`alter table "email_campaigns" drop constraint "email_campaigns_status_check";`);
    this.addSql(`alter table "email_campaigns" add "notice" varchar(300) null;`);
    this.addSql(`alter table "email_campaigns" add constraint "email_campaigns_status_check" check ("status" in ('draft', 'scheduled', 'sending', 'paused', 'sent'));`);

    // One word for a message that may or may not have gone out, in every channel: WhatsApp's.
    this.addSql(`alter table "email_recipients" drop constraint "email_recipients_status_check";`);
    this.addSql(`update "email_recipients" set "status" = 'in_doubt' where "status" = 'unknown';`);
    this.addSql(`alter table "email_recipients" add constraint "email_recipients_status_check" check ("status" in ('held', 'queued', 'sending', 'sent', 'bounced', 'failed', 'in_doubt', 'skipped'));`);
    this.addSql(`create index "email_recipients_queue" on "email_recipients" ("id") where "status" = 'queued';`);
    this.addSql(`create index "email_recipients_in_flight" on "email_recipients" ("claimed_at") where "status" = 'sending';`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "email_recipients_in_flight";`);
    this.addSql(`drop index "email_recipients_queue";`);
    this.addSql(`alter table "email_recipients" drop constraint "email_recipients_status_check";`);
    this.addSql(`update "email_recipients" set "status" = 'unknown' where "status" = 'in_doubt';`);
    this.addSql(`alter table "email_recipients" add constraint "email_recipients_status_check" check ("status" in ('held', 'queued', 'sending', 'sent', 'bounced', 'failed', 'unknown', 'skipped'));`);

    // A paused campaign goes back to sending: the old code knows no pause and no notice.
    this.addSql(`alter table "email_campaigns" drop constraint "email_campaigns_status_check";`);
    this.addSql(`update "email_campaigns" set "status" = 'sending' where "status" = 'paused';`);
    this.addSql(`alter table "email_campaigns" drop column "notice";`);
    this.addSql(`alter table "email_campaigns" add constraint "email_campaigns_status_check" check ("status" in ('draft', 'scheduled', 'sending', 'sent'));`);
  }

}
