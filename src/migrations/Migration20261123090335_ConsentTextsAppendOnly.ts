import { Migration } from '@mikro-orm/migrations';

export class Migration20261123090335_ConsentTextsAppendOnly extends Migration {

  override async up(): Promise<void> {
    this.addSql(`alter table "qr_leads" drop constraint "qr_leads_campaign_id_foreign";`);

    this.addSql(`alter table "consents" drop constraint "consents_text_id_foreign";`);

    // Consent texts are evidence: once stored, a text is never changed or removed, so every
    // consent's text_id keeps pointing at the words the person saw (the dropped key only
    // prevented deletion, and allowed rewriting the text). An update that changes nothing
    // passes: storing a known text again is an upsert that returns the existing id.
    this.addSql(`create function consent_texts_append_only() returns trigger language plpgsql as $$
      begin
        if tg_op = 'UPDATE' and new is not distinct from old then
          return new;
        end if;
        raise exception 'consent texts are append-only (evidence of consent)' using errcode = 'restrict_violation';
      end $$;`);
    this.addSql(`create trigger consent_texts_append_only before update or delete on "consent_texts"
      for each row execute function consent_texts_append_only();`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop trigger consent_texts_append_only on "consent_texts";`);
    this.addSql(`drop function consent_texts_append_only();`);

    this.addSql(`alter table "consents" add constraint "consents_text_id_foreign" foreign key ("text_id") references "consent_texts" ("id") on update cascade on delete no action;`);

    this.addSql(`alter table "qr_leads" add constraint "qr_leads_campaign_id_foreign" foreign key ("campaign_id") references "qr_campaigns" ("id") on update cascade on delete cascade;`);
  }

}
