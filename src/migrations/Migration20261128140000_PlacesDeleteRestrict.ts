import { Migration } from '@mikro-orm/migrations';

/** Rows pointing at a territory, or at a polling station, keep it from being deleted even in a race with the in-use check. */
const TERRITORY_REFERENCES = [
  'qr_campaigns',
  'qr_codes',
  'qr_leads',
  'contacts',
  'gotv_polling_stations',
  'social_competitors',
  'popularity_polls',
  'pqrs_requests',
  'volunteer_activities',
  'volunteers',
  'agenda_events',
] as const;
const STATION_REFERENCES = ['gotv_brigade_stations', 'gotv_turnout_reports', 'gotv_incidents'] as const;

export class Migration20261128140000_PlacesDeleteRestrict extends Migration {
  override name = 'Migration20261128140000_PlacesDeleteRestrict';

  override up(): void | Promise<void> {
    for (const table of TERRITORY_REFERENCES) this.repoint(table, 'territory_id', 'territories', 'restrict');
    for (const table of STATION_REFERENCES) this.repoint(table, 'station_id', 'gotv_polling_stations', 'restrict');
  }

  override down(): void | Promise<void> {
    for (const table of TERRITORY_REFERENCES) this.repoint(table, 'territory_id', 'territories', 'set null');
    for (const table of STATION_REFERENCES) this.repoint(table, 'station_id', 'gotv_polling_stations', 'cascade');
  }

  private repoint(table: string, column: string, target: string, rule: 'restrict' | 'set null' | 'cascade'): void {
    const name = `${table}_${column}_foreign`;
    this.addSql(`alter table "${table}" drop constraint "${name}";`);
    this.addSql(`alter table "${table}" add constraint "${name}" foreign key ("${column}") references "${target}" ("id") on update cascade on delete ${rule};`);
  }
}
