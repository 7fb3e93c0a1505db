import { definePolicy } from '../../kernel/policy';

/** The campaign's shared settings: every signed-in role may read them (the election day is on every screen); managers set them. */
export const campaignPolicy = definePolicy({
  read: { roles: [] },
  configure: { roles: ['manager'] },
});
