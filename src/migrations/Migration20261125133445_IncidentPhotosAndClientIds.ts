import { Migration } from '@mikro-orm/migrations';

export class Migration20261125133445_IncidentPhotosAndClientIds extends Migration {
  override name = 'Migration20261125133445_IncidentPhotosAndClientIds';

  override up(): void | Promise<void> {
    this.addSql(`alter table "gotv_incidents" add "client_id" uuid null, add "photo_type" text null, add "photo_size" int null;`);
    this.addSql(`create index "gotv_incidents_created_at_index" on "gotv_incidents" ("created_at");`);
    this.addSql(`alter table "gotv_incidents" add constraint "gotv_incidents_reported_by_id_client_id_unique" unique ("reported_by_id", "client_id");`);
    this.addSql(`alter table "gotv_incidents" add constraint "gotv_incidents_photo_type_check" check ("photo_type" in ('image/jpeg', 'image/png'));`);

    this.addSql(`alter table "gotv_voter_contacts" add "client_id" uuid null;`);
    this.addSql(`alter table "gotv_voter_contacts" add constraint "gotv_voter_contacts_user_id_client_id_unique" unique ("user_id", "client_id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "gotv_incidents_created_at_index";`);
    this.addSql(`alter table "gotv_incidents" drop constraint "gotv_incidents_reported_by_id_client_id_unique";`);
    this.addSql(`alter table "gotv_incidents" drop constraint "gotv_incidents_photo_type_check";`);
    this.addSql(`alter table "gotv_incidents" drop column "client_id", drop column "photo_type", drop column "photo_size";`);
    this.addSql(`alter table "gotv_voter_contacts" drop constraint "gotv_voter_contacts_user_id_client_id_unique";`);
    this.addSql(`alter table "gotv_voter_contacts" drop column "client_id";`);
  }
}
