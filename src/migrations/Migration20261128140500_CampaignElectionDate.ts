import { Migration } from '@mikro-orm/migrations';

/**
 * One election day for the whole campaign: finance and GOTV each kept their own, which could
 * disagree. GOTV's wins where both were set (it runs the day itself), else finance's.
 */
export class Migration20261128140500_CampaignElectionDate extends Migration {
  override name = 'Migration20261128140500_CampaignElectionDate';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "campaign_settings" ("id" smallint not null, "election_date" varchar(10) null, "updated_at" timestamptz not null, ` +
        `constraint "campaign_settings_pkey" primary key ("id"), constraint "campaign_settings_singleton_check" check (id = 1));`,
    );
    this.addSql(
      `insert into "campaign_settings" ("id", "election_date", "updated_at") values (1, coalesce((select "election_date" from "gotv_settings" where "id" = 1), (select "election_date" from "finance_settings" where "id" = 1)), now());`,
    );
    this.addSql(`alter table "gotv_settings" drop column "election_date";`);
    this.addSql(`alter table "finance_settings" drop column "election_date";`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "finance_settings" add "election_date" varchar(10) null;`);
    this.addSql(`update "finance_settings" set "election_date" = (select "election_date" from "campaign_settings" where "id" = 1);`);
    this.addSql(`alter table "gotv_settings" add "election_date" varchar(10) null;`);
    this.addSql(`update "gotv_settings" set "election_date" = coalesce((select "election_date" from "campaign_settings" where "id" = 1), to_char(now(), 'YYYY-MM-DD'));`);
    this.addSql(`alter table "gotv_settings" alter column "election_date" set not null;`);
    this.addSql(`drop table "campaign_settings";`);
  }
}
