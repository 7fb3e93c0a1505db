import { Migration } from '@mikro-orm/migrations';

export class Migration20261124051706_Popularity extends Migration {

  override name = 'Migration20261124051706_Popularity';

  override up(): void | Promise<void> {
    this.addSql(`create table "popularity_daily_runs" ("date" varchar(10) not null, "ran_at" timestamptz not null, primary key ("date"));`);

    this.addSql(`create table "popularity_settings" ("id" smallint primary key, "score_weights" jsonb not null, "updated_at" timestamptz not null);`);

    this.addSql(`create table "popularity_metrics" ("id" uuid not null, "date" varchar(10) not null, "competitor_id" uuid not null, "metric" varchar(60) not null, "value" double precision not null, "source" varchar(60) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "popularity_metrics_competitor_id_metric_date_index" on "popularity_metrics" ("competitor_id", "metric", "date");`);
    this.addSql(`create index "popularity_metrics_date_id_index" on "popularity_metrics" ("date", "id");`);
    this.addSql(`alter table "popularity_metrics" add constraint "popularity_metrics_key_unique" unique ("date", "competitor_id", "metric", "source");`);

    this.addSql(`create table "popularity_swot_items" ("id" uuid not null, "quadrant" text not null, "text" varchar(500) not null, "evidence" jsonb not null, "suggestion_key" varchar(200) null, "author_id" uuid null, "active" boolean not null default true, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`alter table "popularity_swot_items" add constraint "popularity_swot_items_suggestion_key_unique" unique ("suggestion_key");`);
    this.addSql(`create index "popularity_swot_items_quadrant_created_at_index" on "popularity_swot_items" ("quadrant", "created_at");`);

    this.addSql(`create table "popularity_polls" ("id" uuid not null, "pollster" varchar(160) not null, "sponsor" varchar(160) null, "registration_number" varchar(60) null, "fieldwork_start" varchar(10) not null, "fieldwork_end" varchar(10) not null, "published_at" varchar(10) not null, "scope" text not null, "territory_id" uuid null, "universe" text null, "sample_size" int not null, "method" text not null, "probabilistic" boolean not null, "margin_of_error" double precision not null, "confidence_level" double precision not null, "question" text null, "results" jsonb not null, "source_url" varchar(2048) null, "notes" text null, "compliant" boolean not null, "problems" jsonb not null, "created_by_id" uuid null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "popularity_polls_published_at_id_index" on "popularity_polls" ("published_at", "id");`);
    this.addSql(`create index "popularity_polls_pollster_index" on "popularity_polls" ("pollster");`);

    this.addSql(`alter table "popularity_metrics" add constraint "popularity_metrics_competitor_id_foreign" foreign key ("competitor_id") references "social_competitors" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "popularity_swot_items" add constraint "popularity_swot_items_author_id_foreign" foreign key ("author_id") references "users" ("id") on update cascade on delete set null;`);
    this.addSql(`alter table "popularity_swot_items" add constraint "popularity_swot_items_quadrant_check" check ("quadrant" in ('strength', 'weakness', 'opportunity', 'threat'));`);

    this.addSql(`alter table "popularity_polls" add constraint "popularity_polls_territory_id_foreign" foreign key ("territory_id") references "territories" ("id") on update cascade on delete set null;`);
    this.addSql(`alter table "popularity_polls" add constraint "popularity_polls_created_by_id_foreign" foreign key ("created_by_id") references "users" ("id") on update cascade on delete set null;`);
    this.addSql(`alter table "popularity_polls" add constraint "popularity_polls_scope_check" check ("scope" in ('national', 'department', 'municipality', 'locality'));`);
    this.addSql(`alter table "popularity_polls" add constraint "popularity_polls_method_check" check ("method" in ('face_to_face', 'phone', 'online', 'mixed'));`);

    // The composite score's default weights (docs/popularity.md), one settings row.
    this.addSql(`insert into "popularity_settings" ("id", "score_weights", "updated_at") values (1, '{"pollAverage": 0.4, "favourabilityNet": 0.2, "engagementShare": 0.15, "sentiment": 0.15, "momentum": 0.1}', now());`);
  }

  override down(): void | Promise<void> {
    for (const table of ['popularity_daily_runs', 'popularity_settings', 'popularity_metrics', 'popularity_swot_items', 'popularity_polls']) {
      this.addSql(`drop table if exists "${table}" cascade;`);
    }
  }
}
