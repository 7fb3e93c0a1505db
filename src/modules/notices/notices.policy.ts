import { definePolicy } from '../../kernel/policy';

/** Notices name contacts and what they were told about: campaign staff only, as the leads list. */
export const noticesPolicy = definePolicy({
  read: { roles: ['manager'] },
});
