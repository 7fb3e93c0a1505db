import { Migration } from '@mikro-orm/migrations';

export class Migration20261123224445_AudienceErasureAndAudit extends Migration {

  override name = 'Migration20261123224445_AudienceErasureAndAudit';

  override up(): void | Promise<void> {
    this.addSql(`create table "audience_audit" ("id" uuid not null, "at" timestamptz not null, "actor_id" uuid not null, "action" text not null, "contact_id" uuid not null, "detail" varchar(40) null, "counts" jsonb not null, primary key ("id"));`);
    this.addSql(`create index "audience_audit_at_index" on "audience_audit" ("at");`);
    this.addSql(`create index "audience_audit_contact_id_at_index" on "audience_audit" ("contact_id", "at");`);
    this.addSql(`alter table "audience_audit" add constraint "audience_audit_action_check" check ("action" in ('export', 'erasure', 'withdrawal'));`);

    // The audit of who exported or erased whose data is itself evidence: nothing rewrites or removes a row.
    this.addSql(`create function audience_audit_append_only() returns trigger language plpgsql as $$
      begin
        raise exception 'the audience audit is append-only' using errcode = 'restrict_violation';
      end $$;`);
    this.addSql(`create trigger audience_audit_append_only before update or delete on "audience_audit"
      for each row execute function audience_audit_append_only();`);

    this.addSql(`alter table "contacts" add "erased_at" timestamptz null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "contacts" drop column "erased_at";`);
    this.addSql(`drop trigger audience_audit_append_only on "audience_audit";`);
    this.addSql(`drop function audience_audit_append_only();`);
    this.addSql(`drop table if exists "audience_audit";`);
  }

}
