import Type from 'typebox';

export const DailyReportQuery = Type.Object({
  start_date: Type.Optional(Type.String({ description: 'First day (YYYY-MM-DD, the project\'s time zone); default: 29 days before end_date' })),
  end_date: Type.Optional(Type.String({ description: 'Last day, included (YYYY-MM-DD); default: today' })),
});

const Figures = {
  redemptions: Type.Integer({ description: 'Successful redemptions (one per redeemable)' }),
  failed_redemptions: Type.Integer(),
  rollbacks: Type.Integer({ description: 'Successful rollbacks' }),
  discount_amount: Type.Integer({ description: 'Discount granted by that day\'s redemptions that were not rolled back (minor units)' }),
  points_issued: Type.Integer({ description: 'Loyalty points added by earning rules and manual additions' }),
  points_spent: Type.Integer({ description: 'Loyalty points spent on rewards and redemptions' }),
};

export const DailyReport = Type.Object({
  object: Type.Literal('daily_report'),
  start_date: Type.String(),
  end_date: Type.String(),
  timezone: Type.String(),
  active_campaigns: Type.Integer({ description: 'Campaigns enabled and within their dates now' }),
  totals: Type.Object(Figures),
  data: Type.Array(Type.Object({ date: Type.String(), ...Figures })),
});
