import type { RouteContext, TypedApp } from '../../route-context.ts';
import { dailyReport } from '../../../services/reports/daily.ts';
import { actorOf } from '../../plugins/auth.ts';
import { errorResponses } from '../../../api/common.ts';
import { DailyReport, DailyReportQuery } from '../../../api/reports.ts';

export function registerReportRoutes(app: TypedApp, { deps }: RouteContext): void {
  app.get(
    '/v1/reports/daily',
    {
      schema: {
        tags: ['Reports'],
        operationId: 'getDailyReport',
        summary:
          'Redemptions, discount granted and loyalty points per day, and the active campaigns; with campaign_id, one campaign\'s figures, codes and top codes (Punchcard extension, read-only; the console\'s home and campaign pages)',
        querystring: DailyReportQuery,
        response: { 200: DailyReport, ...errorResponses(404) },
      },
    },
    async (request) => dailyReport(deps, actorOf(request).projectId, request.query),
  );
}
