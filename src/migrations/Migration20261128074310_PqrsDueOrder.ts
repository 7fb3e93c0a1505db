import { Migration } from '@mikro-orm/migrations';

export class Migration20261128074310_PqrsDueOrder extends Migration {
  override name = 'Migration20261128074310_PqrsDueOrder';

  override up(): void | Promise<void> {
    this.addSql(`create index "pqrs_requests_due_at_id_index" on "pqrs_requests" ("due_at", "id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "pqrs_requests_due_at_id_index";`);
  }
}
