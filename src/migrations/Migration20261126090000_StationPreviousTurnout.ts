import { Migration } from '@mikro-orm/migrations';

export class Migration20261126090000_StationPreviousTurnout extends Migration {
  override name = 'Migration20261126090000_StationPreviousTurnout';

  override up(): void | Promise<void> {
    this.addSql(`alter table "gotv_polling_stations" add column "previous_turnout" int null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "gotv_polling_stations" drop column "previous_turnout";`);
  }
}
