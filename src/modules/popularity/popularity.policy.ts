import { definePolicy } from '../../kernel/policy';

/** Staff and screens read the race; managers record polls, metrics and the SWOT; admins set the score's weights. */
export const popularityPolicy = definePolicy({
  read: { roles: ['manager', 'viewer'] },
  record: { roles: ['manager'] },
  setWeights: { roles: ['admin'] },
});
