import { definePolicy } from '../../kernel/policy';

/**
 * Who may do what with email marketing: managers write templates and run campaigns; viewers
 * follow the figures and read templates. A person's own name and address are shown only to those
 * who may see the people captured (managers), as on the leads list.
 */
export const emailPolicy = definePolicy({
  manageTemplates: { roles: ['manager'] },
  readTemplates: { roles: ['manager', 'viewer'] },
  /** A template rendered for a real contact shows their name and address. */
  previewAsContact: {
    roles: ['manager'],
    refusal: 'Previewing as a real contact shows their personal data; only managers may. Preview without contactId to see the sample.',
  },
  manageCampaigns: { roles: ['manager'] },
  readCampaigns: { roles: ['manager', 'viewer'] },
  /** The live room: sending progress and state changes. */
  follow: { roles: ['manager', 'viewer'] },
});
