/** The People API's answers as the server declares them (type-only imports: no server code in the bundle). */
import type { z } from 'zod';
import type { duplicatePairView } from '../../../src/modules/audience/audience.duplicates';
import type { contactImportAnswer } from '../../../src/modules/audience/audience.import';
import type { mergeView } from '../../../src/modules/audience/audience.merge.schemas';
import type { noteView, personDetailView, personView, timelineItemView, timelinePageView } from '../../../src/modules/audience/audience.people.schemas';
import type { erasureView, withdrawalView } from '../../../src/modules/audience/audience.schemas';

export type Person = z.output<typeof personView>;
export type PersonDetail = z.output<typeof personDetailView>;
export type ConsentRecord = PersonDetail['consents'][number];
export type TimelineItem = z.output<typeof timelineItemView>;
export type TimelinePage = z.output<typeof timelinePageView>;
export type Note = z.output<typeof noteView>;
export type DuplicatePair = z.output<typeof duplicatePairView>;
export type ContactMerge = z.output<typeof mergeView>;
export type ImportAnswer = z.output<typeof contactImportAnswer>;
export type Erasure = z.output<typeof erasureView>;
export type Withdrawal = z.output<typeof withdrawalView>;

/** The people's paths in the console. */
export const PEOPLE = '/personas';
export const personPath = (id: string) => `${PEOPLE}/${id}`;
export const mergePath = (a: string, b: string) => `${PEOPLE}/duplicados?a=${a}&b=${b}`;
