import type { z } from 'zod';
import type {
  activityPageView,
  activityView,
  leaderboardView,
  pyramidNodeView,
  pyramidView,
  volunteerRowView,
  volunteerView,
  votersView,
} from '../../../src/modules/volunteers/volunteers.schemas';

/** The volunteers API the screens read and change. */
export const VOLUNTEERS_API = '/api/volunteers';
/** The console's path of the module. */
export const VOLUNTEERS = '/voluntarios';
export const volunteerPath = (id: string) => `${VOLUNTEERS}/${id}`;

export type Volunteer = z.output<typeof volunteerView>;
export type VolunteerRow = z.output<typeof volunteerRowView>;
export type Activity = z.output<typeof activityView>;
export type ActivityPage = z.output<typeof activityPageView>;
export type Pyramid = z.output<typeof pyramidView>;
export type PyramidNode = z.output<typeof pyramidNodeView>;
export type Leaderboard = z.output<typeof leaderboardView>;
export type Voters = z.output<typeof votersView>;
