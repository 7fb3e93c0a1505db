/**
 * The entities and the migrations describe one schema: on the template database, which the
 * migrations built, the ORM's schema diff against the entities is empty. A change to an entity
 * without its migration (or a constraint PostgreSQL stores differently from how the entity writes
 * it, which `npm run migration:create` would then try to "fix" forever) fails here.
 */
import { createOrm } from '../../src/kernel/db';
import { allEntities } from '../../src/modules';
import { templateUrl } from '../helpers/database';

it('finds nothing to change between the migrated database and the entities', async () => {
  const { orm } = await createOrm({ clientUrl: templateUrl, entities: allEntities, poolMax: 1 });
  try {
    expect(await orm.schema.getUpdateSchemaSQL({ wrap: false })).toBe('');
  } finally {
    await orm.close(true);
  }
});
