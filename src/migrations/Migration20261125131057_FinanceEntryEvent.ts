import { Migration } from '@mikro-orm/migrations';

export class Migration20261125131057_FinanceEntryEvent extends Migration {
  override name = 'Migration20261125131057_FinanceEntryEvent';

  override up(): void | Promise<void> {
    this.addSql(`alter table "finance_entries" add "event_id" uuid null;`);
    this.addSql(
      `alter table "finance_entries" add constraint "finance_entries_event_id_foreign" foreign key ("event_id") references "agenda_events" ("id") on update cascade on delete restrict;`,
    );
    this.addSql(`create index "finance_entries_event_id_index" on "finance_entries" ("event_id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "finance_entries" drop constraint "finance_entries_event_id_foreign";`);
    this.addSql(`drop index "finance_entries_event_id_index";`);
    this.addSql(`alter table "finance_entries" drop column "event_id";`);
  }
}
