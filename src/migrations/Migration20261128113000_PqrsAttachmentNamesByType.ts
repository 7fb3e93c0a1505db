import { Migration } from '@mikro-orm/migrations';

export class Migration20261128113000_PqrsAttachmentNamesByType extends Migration {
  override name = 'Migration20261128113000_PqrsAttachmentNamesByType';

  override up(): void | Promise<void> {
    // Attachments kept before names followed the detected type: a PDF stored as `factura.html` becomes `factura.pdf`.
    this.addSql(`with typed as (
        select id, case type when 'application/pdf' then 'pdf' when 'image/jpeg' then 'jpg' when 'image/png' then 'png' else 'docx' end as ext from "pqrs_attachments")
      update "pqrs_attachments" a
         set "file_name" = left(coalesce(nullif(btrim(regexp_replace(a."file_name", '\\.[A-Za-z][A-Za-z0-9]{0,4}$', '')), ''), 'adjunto'), 199 - length(t.ext)) || '.' || t.ext
        from typed t
       where t.id = a.id and a."file_name" not like '%.' || t.ext;`);
  }

  override down(): void | Promise<void> {
    // The names the uploaders gave are not kept: nothing to restore.
  }
}
