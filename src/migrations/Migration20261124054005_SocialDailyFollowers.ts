import { Migration } from '@mikro-orm/migrations';

/** Each profile's last follower count per local day, so follower comparisons carry a few thousand rows forward instead of probing every snapshot. */
export class Migration20261124054005_SocialDailyFollowers extends Migration {

  override name = 'Migration20261124054005_SocialDailyFollowers';

  override up(): void | Promise<void> {
    this.addSql(`create table "social_daily_followers" ("profile_id" uuid not null, "day" varchar(10) not null, "captured_at" timestamptz not null, "followers" bigint not null, primary key ("profile_id", "day"));`);

    this.addSql(`alter table "social_daily_followers" add constraint "social_daily_followers_profile_id_foreign" foreign key ("profile_id") references "social_profiles" ("id") on update cascade on delete cascade;`);

    // Counts captured before the table existed, by local day of the rollup's zone.
    this.addSql(`insert into social_daily_followers (profile_id, day, captured_at, followers)
      select distinct on (profile_id, day) profile_id, day, captured_at, followers
      from (select s.profile_id, to_char(s.captured_at at time zone z.time_zone, 'YYYY-MM-DD') as day, s.captured_at, s.followers
            from social_follower_snapshots s, social_rollup_settings z where z.id = 1) x
      order by profile_id, day, captured_at desc;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "social_daily_followers" cascade;`);
  }
}
