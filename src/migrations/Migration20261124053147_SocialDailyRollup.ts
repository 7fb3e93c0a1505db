import { Migration } from '@mikro-orm/migrations';

/**
 * Posts per competitor, platform and local day, kept by statement triggers on `social_posts` so
 * that every writer (imports, the poller, any later one) keeps them right without knowing they
 * exist: each statement adds what it inserted and subtracts what it replaced, from its transition
 * tables, so concurrent writers' changes add up in any order. Days are in the time zone recorded in
 * `social_rollup_settings`; the service re-builds the rollup when the configured zone differs.
 */
export class Migration20261124053147_SocialDailyRollup extends Migration {

  override name = 'Migration20261124053147_SocialDailyRollup';

  override up(): void | Promise<void> {
    this.addSql(`create table "social_rollup_settings" ("id" smallint not null, "time_zone" varchar(64) not null, primary key ("id"));`);

    this.addSql(`create table "social_daily_posts" ("competitor_id" uuid not null, "platform" text not null, "day" varchar(10) not null, "posts" int not null default 0, "engagement" bigint not null default '0', "rate_sum" double precision not null default 0, "rate_count" int not null default 0, "positive" int not null default 0, "negative" int not null default 0, primary key ("competitor_id", "platform", "day"));`);

    this.addSql(`alter table "social_daily_posts" add constraint "social_daily_posts_competitor_id_foreign" foreign key ("competitor_id") references "social_competitors" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "social_daily_posts" add constraint "social_daily_posts_platform_check" check ("platform" in ('facebook', 'instagram', 'x', 'youtube', 'tiktok'));`);

    this.addSql(`insert into social_rollup_settings (id, time_zone) values (1, 'America/Bogota');`);

    // One row per post version: +1 for what a statement wrote, −1 for what it replaced or deleted.
    this.addSql(`create function social_daily_apply(sign integer, rows social_posts[]) returns void language sql as $$
      insert into social_daily_posts as d (competitor_id, platform, day, posts, engagement, rate_sum, rate_count, positive, negative)
      select r.competitor_id, r.platform, to_char(r.published_at at time zone z.time_zone, 'YYYY-MM-DD'),
        sign * count(*), sign * coalesce(sum(r.engagement), 0), sign * coalesce(sum(r.engagement_rate), 0), sign * count(r.engagement_rate),
        sign * count(*) filter (where r.sentiment_label = 'positive'), sign * count(*) filter (where r.sentiment_label = 'negative')
      from unnest(rows) r, social_rollup_settings z where z.id = 1
      group by 1, 2, 3 order by 1, 2, 3
      on conflict (competitor_id, platform, day) do update set posts = d.posts + excluded.posts, engagement = d.engagement + excluded.engagement,
        rate_sum = d.rate_sum + excluded.rate_sum, rate_count = d.rate_count + excluded.rate_count,
        positive = d.positive + excluded.positive, negative = d.negative + excluded.negative
    $$;`);
    this.addSql(`create function social_daily_statement() returns trigger language plpgsql as $$
    begin
      if tg_op in ('UPDATE', 'DELETE') then perform social_daily_apply(-1, array(select o::social_posts from old_posts o)); end if;
      if tg_op in ('UPDATE', 'INSERT') then perform social_daily_apply(1, array(select n::social_posts from new_posts n)); end if;
      return null;
    end $$;`);
    this.addSql(`create trigger social_posts_daily_insert after insert on social_posts
      referencing new table as new_posts for each statement execute function social_daily_statement();`);
    this.addSql(`create trigger social_posts_daily_update after update on social_posts
      referencing old table as old_posts new table as new_posts for each statement execute function social_daily_statement();`);
    this.addSql(`create trigger social_posts_daily_delete after delete on social_posts
      referencing old table as old_posts for each statement execute function social_daily_statement();`);

    // Posts written before the triggers, counted while no one can write them.
    this.addSql(`lock table social_posts in share mode;`);
    this.addSql(`select social_daily_apply(1, array(select p from social_posts p));`);

    // The engagement-spike rule reads an author's recent posts on one platform with their latest counts.
    this.addSql(`create index social_posts_baseline on social_posts (competitor_id, platform, published_at) include (engagement, engagement_rate);`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index if exists social_posts_baseline;`);
    this.addSql(`drop trigger if exists social_posts_daily_insert on social_posts;`);
    this.addSql(`drop trigger if exists social_posts_daily_update on social_posts;`);
    this.addSql(`drop trigger if exists social_posts_daily_delete on social_posts;`);
    this.addSql(`drop function if exists social_daily_statement(), social_daily_apply(integer, social_posts[]);`);
    this.addSql(`drop table if exists "social_daily_posts" cascade;`);
    this.addSql(`drop table if exists "social_rollup_settings" cascade;`);
  }
}
