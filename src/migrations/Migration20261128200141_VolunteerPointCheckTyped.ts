import { Migration } from '@mikro-orm/migrations';

/** The same rule, with its bounds typed as the columns are: PostgreSQL stores it as written, and the schema diff agrees. */
export class Migration20261128200141_VolunteerPointCheckTyped extends Migration {
  override name = 'Migration20261128200141_VolunteerPointCheckTyped';

  override up(): void | Promise<void> {
    this.addSql(`alter table "volunteer_activities" drop constraint "volunteer_activities_point_check";`);
    this.addSql(
      `alter table "volunteer_activities" add constraint "volunteer_activities_point_check" check ((lat is null) = (lng is null) and (lat is null or (lat >= '-90'::double precision and lat <= '90'::double precision and lng >= '-180'::double precision and lng <= '180'::double precision)));`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "volunteer_activities" drop constraint "volunteer_activities_point_check";`);
    this.addSql(
      `alter table "volunteer_activities" add constraint "volunteer_activities_point_check" check ((lat is null) = (lng is null) and (lat is null or (lat between -90 and 90 and lng between -180 and 180)));`,
    );
  }
}
