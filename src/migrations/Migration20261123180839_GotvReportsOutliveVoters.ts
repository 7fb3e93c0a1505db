import { Migration } from '@mikro-orm/migrations';

export class Migration20261123180839_GotvReportsOutliveVoters extends Migration {

  override async up(): Promise<void> {
    this.addSql(`alter table "gotv_turnout_reports" drop constraint "gotv_turnout_reports_voter_id_foreign";`);

    this.addSql(`alter table "gotv_turnout_reports" add constraint "gotv_turnout_reports_voter_id_foreign" foreign key ("voter_id") references "gotv_voters" ("id") on update cascade on delete set null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "gotv_turnout_reports" drop constraint "gotv_turnout_reports_voter_id_foreign";`);

    this.addSql(`alter table "gotv_turnout_reports" add constraint "gotv_turnout_reports_voter_id_foreign" foreign key ("voter_id") references "gotv_voters" ("id") on update cascade on delete cascade;`);
  }

}
