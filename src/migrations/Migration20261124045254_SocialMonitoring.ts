import { Migration } from '@mikro-orm/migrations';

export class Migration20261124045254_SocialMonitoring extends Migration {

  override name = 'Migration20261124045254_SocialMonitoring';

  override up(): void | Promise<void> {
    this.addSql(`create table "social_quota_usage" ("platform" text not null, "period_start" timestamptz not null, "used" bigint not null default '0', primary key ("platform", "period_start"));`);

    this.addSql(`create table "social_competitors" ("id" uuid not null, "name" varchar(160) not null, "party" varchar(160) null, "colour" varchar(7) null, "photo_url" varchar(2048) null, "notes" text null, "is_own" boolean not null default false, "territory_id" uuid null, "active" boolean not null default true, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "social_competitors_name_id_index" on "social_competitors" ("name", "id");`);
    this.addSql(`create unique index social_competitors_name_unique on social_competitors (lower(name));`);
    this.addSql(`create unique index social_competitors_one_own on social_competitors (is_own) where is_own;`);

    this.addSql(`create table "social_profiles" ("id" uuid not null, "competitor_id" uuid not null, "platform" text not null, "handle" varchar(100) not null, "platform_id" varchar(64) null, "url" varchar(2048) null, "source" text not null, "display_name" varchar(200) null, "followers" bigint null, "last_fetched_at" timestamptz null, "last_error" varchar(500) null, "consecutive_failures" int not null default 0, "paused_reason" varchar(500) null, "next_fetch_at" timestamptz null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "social_profiles_competitor_id_index" on "social_profiles" ("competitor_id");`);
    this.addSql(`alter table "social_profiles" add constraint "social_profiles_platform_handle_unique" unique ("platform", "handle");`);

    this.addSql(`create table "social_follower_snapshots" ("profile_id" uuid not null, "captured_at" timestamptz not null, "followers" bigint not null, primary key ("profile_id", "captured_at"));`);

    this.addSql(`create table "social_posts" ("id" uuid not null, "platform" text not null, "platform_post_id" varchar(100) not null, "competitor_id" uuid not null, "profile_id" uuid null, "published_at" timestamptz not null, "text" text not null, "url" varchar(2048) null, "media_type" varchar(30) null, "likes" bigint null, "comments" bigint null, "shares" bigint null, "views" bigint null, "engagement" bigint not null default '0', "engagement_rate" double precision null, "sentiment_score" double precision not null, "sentiment_label" text not null, "hashtags" text[] not null default '{}', "mentions" text[] not null default '{}', "keywords" text[] not null default '{}', "mentions_us" boolean not null default false, "search" tsvector generated always as (to_tsvector('spanish', text)) stored null, "first_seen_at" timestamptz not null, "last_snapshot_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "social_posts_competitor_id_published_at_index" on "social_posts" ("competitor_id", "published_at");`);
    this.addSql(`create index "social_posts_published_at_id_index" on "social_posts" ("published_at", "id");`);
    this.addSql(`create index "social_posts_engagement_id_index" on "social_posts" ("engagement", "id");`);
    this.addSql(`create index "social_posts_search_index" on "public"."social_posts" using gin("search");`);
    this.addSql(`alter table "social_posts" add constraint "social_posts_platform_post_unique" unique ("platform", "platform_post_id");`);

    this.addSql(`create table "social_post_snapshots" ("post_id" uuid not null, "captured_at" timestamptz not null, "likes" bigint null, "comments" bigint null, "shares" bigint null, "views" bigint null, "engagement" bigint not null, primary key ("post_id", "captured_at"));`);

    this.addSql(`create table "social_alert_rules" ("id" uuid not null, "kind" text not null, "name" varchar(160) not null, "enabled" boolean not null default true, "severity" text not null, "params" jsonb not null, "competitor_id" uuid null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);

    this.addSql(`create table "social_alerts" ("id" uuid not null, "rule_id" uuid null, "kind" text not null, "dedupe_key" varchar(200) not null, "competitor_id" uuid null, "profile_id" uuid null, "post_id" uuid null, "severity" text not null, "title" varchar(300) not null, "details" jsonb not null, "state" text not null default 'new', "seen_by_id" uuid null, "seen_at" timestamptz null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`alter table "social_alerts" add constraint "social_alerts_dedupe_key_unique" unique ("dedupe_key");`);
    this.addSql(`create index "social_alerts_created_at_id_index" on "social_alerts" ("created_at", "id");`);
    this.addSql(`create index "social_alerts_state_created_at_index" on "social_alerts" ("state", "created_at");`);

    this.addSql(`alter table "social_quota_usage" add constraint "social_quota_usage_platform_check" check ("platform" in ('facebook', 'instagram', 'x', 'youtube', 'tiktok'));`);

    this.addSql(`alter table "social_competitors" add constraint "social_competitors_territory_id_foreign" foreign key ("territory_id") references "territories" ("id") on update cascade on delete set null;`);

    this.addSql(`alter table "social_profiles" add constraint "social_profiles_competitor_id_foreign" foreign key ("competitor_id") references "social_competitors" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "social_profiles" add constraint "social_profiles_platform_check" check ("platform" in ('facebook', 'instagram', 'x', 'youtube', 'tiktok'));`);
    this.addSql(`alter table "social_profiles" add constraint "social_profiles_source_check" check ("source" in ('api', 'import'));`);

    this.addSql(`alter table "social_follower_snapshots" add constraint "social_follower_snapshots_profile_id_foreign" foreign key ("profile_id") references "social_profiles" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "social_posts" add constraint "social_posts_competitor_id_foreign" foreign key ("competitor_id") references "social_competitors" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "social_posts" add constraint "social_posts_profile_id_foreign" foreign key ("profile_id") references "social_profiles" ("id") on update cascade on delete set null;`);
    this.addSql(`alter table "social_posts" add constraint "social_posts_platform_check" check ("platform" in ('facebook', 'instagram', 'x', 'youtube', 'tiktok'));`);
    this.addSql(`alter table "social_posts" add constraint "social_posts_sentiment_label_check" check ("sentiment_label" in ('positive', 'neutral', 'negative'));`);

    this.addSql(`alter table "social_post_snapshots" add constraint "social_post_snapshots_post_id_foreign" foreign key ("post_id") references "social_posts" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "social_alert_rules" add constraint "social_alert_rules_competitor_id_foreign" foreign key ("competitor_id") references "social_competitors" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "social_alert_rules" add constraint "social_alert_rules_kind_check" check ("kind" in ('new_post', 'keyword', 'engagement_spike', 'follower_change', 'negative_sentiment'));`);
    this.addSql(`alter table "social_alert_rules" add constraint "social_alert_rules_severity_check" check ("severity" in ('info', 'warning', 'critical'));`);

    this.addSql(`alter table "social_alerts" add constraint "social_alerts_rule_id_foreign" foreign key ("rule_id") references "social_alert_rules" ("id") on update cascade on delete set null;`);
    this.addSql(`alter table "social_alerts" add constraint "social_alerts_competitor_id_foreign" foreign key ("competitor_id") references "social_competitors" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "social_alerts" add constraint "social_alerts_profile_id_foreign" foreign key ("profile_id") references "social_profiles" ("id") on update cascade on delete set null;`);
    this.addSql(`alter table "social_alerts" add constraint "social_alerts_post_id_foreign" foreign key ("post_id") references "social_posts" ("id") on update cascade on delete set null;`);
    this.addSql(`alter table "social_alerts" add constraint "social_alerts_seen_by_id_foreign" foreign key ("seen_by_id") references "users" ("id") on update cascade on delete set null;`);
    this.addSql(`alter table "social_alerts" add constraint "social_alerts_kind_check" check ("kind" in ('new_post', 'keyword', 'engagement_spike', 'follower_change', 'negative_sentiment'));`);
    this.addSql(`alter table "social_alerts" add constraint "social_alerts_severity_check" check ("severity" in ('info', 'warning', 'critical'));`);
    this.addSql(`alter table "social_alerts" add constraint "social_alerts_state_check" check ("state" in ('new', 'seen', 'dismissed'));`);

    // The poller's list: due profiles that are not paused.
    this.addSql(`create index social_profiles_due on social_profiles (next_fetch_at) where paused_reason is null and next_fetch_at is not null;`);

    // The default rules, written once with the schema so that every process finds the same ones (formulas in docs/social-monitoring.md).
    this.addSql(`insert into "social_alert_rules" ("id", "kind", "name", "enabled", "severity", "params", "created_at", "updated_at") values
      (gen_random_uuid(), 'new_post', 'Nueva publicación de un competidor', true, 'info', '{"maxAgeHours": 24}', now(), now()),
      (gen_random_uuid(), 'keyword', 'Nos mencionan', true, 'warning', '{"keywords": [], "includeOwnNames": true}', now(), now()),
      (gen_random_uuid(), 'engagement_spike', 'Publicación que despega', true, 'warning', '{"method": "zscore", "k": 2.5, "ratio": 1.5, "baselineDays": 30, "minBaselinePosts": 5}', now(), now()),
      (gen_random_uuid(), 'follower_change', 'Salto o caída de seguidores', true, 'warning', '{"windowHours": 24, "surgePercent": 5, "dropPercent": 3}', now(), now()),
      (gen_random_uuid(), 'negative_sentiment', 'Conversación negativa sobre nosotros', true, 'critical', '{"windowHours": 6, "threshold": 0.4, "minPosts": 5}', now(), now());`);
  }

  override down(): void | Promise<void> {
    for (const table of ['social_alerts', 'social_alert_rules', 'social_post_snapshots', 'social_posts', 'social_follower_snapshots', 'social_profiles', 'social_competitors', 'social_quota_usage']) {
      this.addSql(`drop table if exists "${table}" cascade;`);
    }
  }
}
