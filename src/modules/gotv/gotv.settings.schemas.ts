/** The election-day settings' body and view, apart from the service: the console's settings form validates with the same schema. */
import { z } from 'zod';
import { calendarDate } from '../../kernel/schemas';
import { curveSettingsSchema } from './projection/curve';
import { curveHistorySchema, followingDaySchema, followingDaysProblems, followingDaysSchema, previousTurnoutSpreadSchema } from './projection/curve-history';

export const settingsBody = z
  .object({
    electionDate: calendarDate.optional().describe('the campaign’s election day (the same as `PUT /api/campaign/settings` sets, which finance reads too); omitted: kept as it is'),
    curveHistory: curveHistorySchema
      .optional()
      .describe(
        'past election days’ curves (at most 20): their mean is the prior when there is no `turnoutCurve`, their differences its spread; omitted: kept as stored, []: cleared',
      ),
    previousTurnoutSpread: previousTurnoutSpreadSchema
      .nullable()
      .optional()
      .describe('how far this election’s turnout may stray from the stations’ `previousTurnout` (log sds); omitted: kept as stored, null: the defaults'),
    followingDays: followingDaysSchema
      .optional()
      .describe(
        'later days the polls open too (Italy: Sunday and Monday), each after the one before, with its own hours; the night between is a pause. With later days the curve is the curve history’s or the default’s (a `turnoutCurve` covers one day). Omitted or []: election day only',
      ),
  })
  .and(curveSettingsSchema)
  .superRefine((settings, ctx) => {
    // Without a date in the body, the stored one is checked when saving.
    if (settings.electionDate !== undefined) {
      for (const { index, message } of followingDaysProblems(settings.electionDate, settings.followingDays ?? [])) {
        ctx.addIssue({ code: 'custom', message, path: ['followingDays', index] });
      }
    }
    if (settings.followingDays?.length && settings.turnoutCurve) {
      ctx.addIssue({ code: 'custom', message: 'a turnoutCurve covers one day: with followingDays, give the past days as curveHistory', path: ['turnoutCurve'] });
    }
  });

export const settingsView = z
  .object({
    electionDate: calendarDate.nullable(),
    opensAt: z.string(),
    closesAt: z.string(),
    turnoutCurve: z
      .array(z.object({ time: z.string(), fraction: z.number() }))
      .nullable()
      .describe('null: the documented default curve (or the mean of the curve history)'),
    curveHistory: z.array(z.object({ label: z.string(), electionDate: z.string().optional(), turnoutCurve: z.array(z.object({ time: z.string(), fraction: z.number() })) })),
    previousTurnoutSpread: previousTurnoutSpreadSchema.describe('in use: the stored one, or the defaults'),
    followingDays: z.array(followingDaySchema).describe('later polling days (empty: election day only)'),
  })
  .meta({ id: 'GotvSettings' });
