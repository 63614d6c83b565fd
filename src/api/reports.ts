import Type from 'typebox';

export const DailyReportQuery = Type.Object({
  start_date: Type.Optional(Type.String({ description: 'First day (YYYY-MM-DD, the project\'s time zone); default: 29 days before end_date' })),
  end_date: Type.Optional(Type.String({ description: 'Last day, included (YYYY-MM-DD); default: today' })),
  campaign_id: Type.Optional(
    Type.String({ minLength: 1, maxLength: 255, description: 'Only this campaign (id or name): its figures per day, its codes and its most redeemed codes in `campaign`' }),
  ),
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
  campaign: Type.Optional(
    Type.Object(
      {
        id: Type.String(),
        name: Type.String(),
        codes: Type.Object({
          total: Type.Integer({ description: 'Live codes now' }),
          published: Type.Integer({ description: 'Codes with a holder' }),
          redeemed: Type.Integer({ description: 'Codes redeemed at least once' }),
        }),
        top_codes: Type.Array(
          Type.Object({ code: Type.String(), redemptions: Type.Integer(), discount_amount: Type.Integer({ description: 'Discount still granted (minor units)' }) }),
          { description: 'The ten codes with the most successful redemptions in the range' },
        ),
      },
      { description: 'Only with campaign_id' },
    ),
  ),
});
