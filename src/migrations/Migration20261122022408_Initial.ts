import { Migration } from '@mikro-orm/migrations';

export class Migration20261122022408_Initial extends Migration {

  override async up(): Promise<void> {
    this.addSql(`create table "territories" ("id" uuid not null, "name" varchar(160) not null, "type" text check ("type" in ('department', 'municipality', 'commune', 'neighbourhood', 'zone')) not null, "code" varchar(40) null, "parent_id" uuid null, "centroid_lat" double precision null, "centroid_lng" double precision null, "geometry" jsonb null, "population" int null, "registered_voters" int null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "territories_pkey" primary key ("id"));`);
    this.addSql(`create index "territories_parent_id_name_index" on "territories" ("parent_id", "name");`);
    this.addSql(`create index "territories_type_name_index" on "territories" ("type", "name");`);
    this.addSql(`alter table "territories" add constraint "territories_type_code_unique" unique ("type", "code");`);

    this.addSql(`create table "users" ("id" uuid not null, "email" varchar(254) not null, "name" varchar(120) not null, "password_hash" text not null, "role" text check ("role" in ('admin', 'manager', 'brigade', 'volunteer', 'viewer')) not null, "active" boolean not null default true, "token_version" int not null default 0, "last_login_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "users_pkey" primary key ("id"));`);
    this.addSql(`alter table "users" add constraint "users_email_unique" unique ("email");`);

    this.addSql(`alter table "territories" add constraint "territories_parent_id_foreign" foreign key ("parent_id") references "territories" ("id") on update cascade on delete restrict;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "territories" drop constraint "territories_parent_id_foreign";`);

    this.addSql(`drop table if exists "territories" cascade;`);

    this.addSql(`drop table if exists "users" cascade;`);
  }

}
