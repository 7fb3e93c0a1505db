/**
 * A `gotv:projection` push as Comando sent it in a run of bench:gotv (300 stations, voting hours
 * 00:00–23:59 so that any hour of the day is election day, voter reports at 200/s). The bare baseline broadcasts it, with a fresh `generatedAt`, as often as Comando
 * pushes its own, so that the clients read the same messages in both runs: parsing 2,000 copies
 * of it on the load process's one listener thread is apparatus, not server work. When the push's
 * shape changes, copy one a war-room client receives in a run (the report prints both sizes).
 */
/** Seconds between gotv:projection pushes: Comando's GOTV_PROJECTION_PUSH (default 5), which the baseline follows too. */
export const projectionPushSeconds = Number(process.env.GOTV_PROJECTION_PUSH ?? 5);

export const recordedProjectionPush = {
  generatedAt: '2026-11-26T12:09:06.537Z',
  method: 'learned-curve/v3',
  phase: 'open',
  elapsedFraction: 0.2401,
  curveSource: 'default',
  warnings: ['no usable count yet: turnout is not projected and the curve is the prior'],
  coverage: 0.9,
  lagMinutes: null,
  curve: {
    scope: 'day',
    countedStations: 0,
    supporterVotes: 0,
    points: [
      { time: '00:00', fraction: 0, low: 0, high: 0, prior: 0 },
      { time: '01:00', fraction: 0.0267, low: 0.0132, high: 0.0532, prior: 0.0267 },
      { time: '02:00', fraction: 0.0534, low: 0.0271, high: 0.1025, prior: 0.0534 },
      { time: '03:00', fraction: 0.0801, low: 0.0417, high: 0.1484, prior: 0.0801 },
      { time: '04:00', fraction: 0.1168, low: 0.0627, high: 0.2073, prior: 0.1168 },
      { time: '05:00', fraction: 0.1535, low: 0.0846, high: 0.2622, prior: 0.1535 },
      { time: '06:00', fraction: 0.1902, low: 0.1077, high: 0.3137, prior: 0.1902 },
      { time: '07:00', fraction: 0.2335, low: 0.1362, high: 0.3707, prior: 0.2335 },
      { time: '08:00', fraction: 0.2769, low: 0.166, high: 0.4242, prior: 0.2769 },
      { time: '09:00', fraction: 0.3203, low: 0.1973, high: 0.4746, prior: 0.3203 },
      { time: '10:00', fraction: 0.367, low: 0.2327, high: 0.5257, prior: 0.367 },
      { time: '11:00', fraction: 0.4137, low: 0.2699, high: 0.5739, prior: 0.4137 },
      { time: '12:00', fraction: 0.4603, low: 0.309, high: 0.6194, prior: 0.4603 },
      { time: '13:00', fraction: 0.5004, low: 0.3443, high: 0.6564, prior: 0.5004 },
      { time: '14:00', fraction: 0.5404, low: 0.3815, high: 0.6914, prior: 0.5404 },
      { time: '15:00', fraction: 0.5805, low: 0.4209, high: 0.7248, prior: 0.5805 },
      { time: '16:00', fraction: 0.6238, low: 0.4661, high: 0.7591, prior: 0.6238 },
      { time: '17:00', fraction: 0.6672, low: 0.5139, high: 0.7917, prior: 0.6672 },
      { time: '18:00', fraction: 0.7106, low: 0.5648, high: 0.8228, prior: 0.7106 },
      { time: '19:00', fraction: 0.7573, low: 0.6231, high: 0.8548, prior: 0.7573 },
      { time: '20:00', fraction: 0.804, low: 0.6853, high: 0.8854, prior: 0.804 },
      { time: '21:00', fraction: 0.8507, low: 0.752, high: 0.9146, prior: 0.8507 },
      { time: '22:00', fraction: 0.9008, low: 0.8287, high: 0.9445, prior: 0.9008 },
      { time: '23:00', fraction: 0.9508, low: 0.9115, high: 0.9731, prior: 0.9508 },
      { time: '23:59', fraction: 1, low: 1, high: 1, prior: 1 },
    ],
  },
  overall: {
    confirmedVoters: 150000,
    confirmedVoted: 2011,
    projectedConfirmedVoted: 8375,
    low: 4844,
    high: 13196,
    registeredVoters: 1800000,
    votersSoFar: 0,
    projectedTurnout: null,
    projectedTurnoutLow: null,
    projectedTurnoutHigh: null,
    stations: 300,
    reportingStations: 0,
    reportedShare: 0,
  },
  byTerritory: [
    {
      territoryId: null,
      confirmedVoters: 150000,
      confirmedVoted: 2011,
      projectedConfirmedVoted: 8375,
      low: 4844,
      high: 13196,
      registeredVoters: 1800000,
      votersSoFar: 0,
      projectedTurnout: null,
      projectedTurnoutLow: null,
      projectedTurnoutHigh: null,
      stations: 300,
      reportingStations: 0,
      reportedShare: 0,
      coverage: 0.9,
      lagMinutes: null,
    },
  ],
};
