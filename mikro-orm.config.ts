import { ormOptions } from './src/kernel/db';
import { allEntities } from './src/modules';

/**
 * MikroORM's configuration for tools (migration generation). The app builds the same options
 * through src/kernel/db.ts, so there is one definition.
 */
export default ormOptions({
  clientUrl: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/comando_dev',
  entities: allEntities,
});
