import Type from 'typebox';
import type { RouteContext, TypedApp } from '../../route-context.ts';
import { adjustVoucherBalance } from '../../../services/vouchers/balance.ts';
import { campaignSummary } from '../../../services/vouchers/campaign-summary.ts';
import { campaignTransactions, exportCampaignTransactions, exportVoucherTransactions, listVoucherTransactions } from '../../../services/vouchers/transactions.ts';
import { importVouchers } from '../../../services/vouchers/voucher-import.ts';
import * as vouchers from '../../../services/vouchers/vouchers.ts';
import { actorOf } from '../../plugins/auth.ts';
import { noContent } from '../../reply.ts';
import { AsyncActionAccepted } from '../../../api/campaigns.ts';
import { errorResponses, IdParams, NoContent } from '../../../api/common.ts';
import { ExportObject, ScopedExportBody } from '../../../api/exports.ts';
import {
  BalanceBody,
  BalanceObject,
  CampaignSummary,
  CampaignTransactionsQuery,
  CampaignSummaryQuery,
  CodeParams,
  CreateVoucherBody,
  DeleteVoucherQuery,
  ImportVouchersBody,
  ListTransactionsQuery,
  ListVouchersQuery,
  TransactionList,
  UpdateVoucherBody,
  VoucherList,
  VoucherObject,
} from '../../../api/vouchers.ts';

const tags = ['Vouchers'];
const CampaignParams = IdParams('campaignId', 'Campaign id (camp_…) or name');

export function registerVoucherRoutes(app: TypedApp, { deps }: RouteContext): void {
  app.post(
    '/v1/vouchers',
    {
      schema: {
        tags,
        operationId: 'createVoucherWithGeneratedCode',
        summary: 'Create a voucher: standalone, or in the campaign named by campaign/campaign_id; the code is generated unless `code` is sent',
        body: CreateVoucherBody,
        response: { 200: VoucherObject, ...errorResponses(404, 409) },
      },
    },
    async (request) => vouchers.createVoucher(deps, actorOf(request), undefined, request.body),
  );

  app.post(
    '/v1/vouchers/import',
    {
      schema: {
        tags,
        operationId: 'importVouchers',
        summary: 'Import standalone vouchers with given codes; checked at once, written in the background (VOUCHERS.IMPORT)',
        body: ImportVouchersBody,
        response: { 202: AsyncActionAccepted, ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      const id = await importVouchers(deps, actorOf(request), null, request.body);
      return reply.code(202).send({ async_action_id: id });
    },
  );

  app.post(
    '/v1/vouchers/:code',
    {
      schema: {
        tags,
        operationId: 'createVoucher',
        summary: 'Create a voucher with the code in the path (409 when a live voucher has it)',
        params: CodeParams,
        body: CreateVoucherBody,
        response: { 200: VoucherObject, ...errorResponses(404, 409) },
      },
    },
    async (request) => vouchers.createVoucher(deps, actorOf(request), request.params.code, request.body),
  );

  app.get(
    '/v1/vouchers/:code',
    {
      schema: {
        tags,
        operationId: 'getVoucher',
        summary: 'Get a voucher by code, with the validation rules assigned to it',
        params: CodeParams,
        response: { 200: VoucherObject, ...errorResponses(404) },
      },
    },
    async (request) => vouchers.getVoucher(deps, actorOf(request), request.params.code),
  );

  app.get(
    '/v1/vouchers',
    {
      schema: {
        tags,
        operationId: 'listVouchers',
        summary: 'List vouchers, newest first by default, with the vendor filters',
        querystring: ListVouchersQuery,
        response: { 200: VoucherList, ...errorResponses() },
      },
    },
    async (request) => vouchers.listVouchers(deps, actorOf(request), request.query),
  );

  app.put(
    '/v1/vouchers/:code',
    {
      schema: {
        tags,
        operationId: 'updateVoucher',
        summary: 'Update a voucher; gift credits and loyalty points change only through /balance',
        params: CodeParams,
        body: UpdateVoucherBody,
        response: { 200: VoucherObject, ...errorResponses(404) },
      },
    },
    async (request) => vouchers.updateVoucher(deps, actorOf(request), request.params.code, request.body),
  );

  app.delete(
    '/v1/vouchers/:code',
    {
      schema: {
        tags,
        operationId: 'deleteVoucher',
        summary: 'Delete a voucher: to the bin, or for good with force=true; its code is free again at once',
        params: CodeParams,
        querystring: DeleteVoucherQuery,
        response: { 204: NoContent, ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      await vouchers.deleteVoucher(deps, actorOf(request), request.params.code, request.query.force === true);
      return noContent(reply);
    },
  );

  for (const [action, active] of [['enable', true], ['disable', false]] as const) {
    app.post(
      `/v1/vouchers/:code/${action}`,
      {
        schema: {
          tags,
          operationId: `${action}Voucher`,
          summary: active ? 'Enable a voucher' : 'Disable a voucher: it cannot be redeemed or published until enabled',
          params: CodeParams,
          body: Type.Optional(Type.Object({}, { description: 'The SDK sends {}' })),
          response: { 200: VoucherObject, ...errorResponses(404) },
        },
      },
      async (request) => vouchers.setVoucherActive(deps, actorOf(request), request.params.code, active),
    );
  }

  app.post(
    '/v1/vouchers/:code/balance',
    {
      schema: {
        tags,
        operationId: 'adjustVoucherBalance',
        summary: 'Add or remove gift card credits or loyalty card points; a positive amount adds, a negative one removes; a removal beyond the balance changes nothing',
        params: CodeParams,
        body: BalanceBody,
        response: { 200: BalanceObject, ...errorResponses(404) },
      },
    },
    async (request) => adjustVoucherBalance(deps, actorOf(request), request.params.code, request.body),
  );

  app.get(
    '/v1/vouchers/:code/transactions',
    {
      schema: {
        tags,
        operationId: 'listVoucherTransactions',
        summary: 'List the balance transactions of a gift card or loyalty card, newest first',
        params: CodeParams,
        querystring: ListTransactionsQuery,
        response: { 200: TransactionList, ...errorResponses(404) },
      },
    },
    async (request) => listVoucherTransactions(deps, actorOf(request), request.params.code, request.query),
  );

  app.post(
    '/v1/vouchers/:code/transactions/export',
    {
      schema: {
        tags,
        operationId: 'exportVoucherTransactions',
        summary: "Schedule a CSV export of a card's balance transactions (a voucher_transactions export limited to the gift card or loyalty card)",
        params: CodeParams,
        body: ScopedExportBody,
        response: { 200: ExportObject, ...errorResponses(404) },
      },
    },
    async (request) => exportVoucherTransactions(deps, actorOf(request), request.params.code, request.body),
  );

  app.post(
    '/v1/campaigns/:campaignId/import',
    {
      schema: {
        tags: ['Campaigns'],
        operationId: 'importVouchersToCampaign',
        summary: 'Import vouchers with given codes into a campaign; checked at once, written in the background (CAMPAIGN.VOUCHERS_IMPORT)',
        params: CampaignParams,
        body: ImportVouchersBody,
        response: { 202: AsyncActionAccepted, ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      const id = await importVouchers(deps, actorOf(request), request.params.campaignId, request.body);
      return reply.code(202).send({ async_action_id: id });
    },
  );

  app.get(
    '/v1/campaigns/:campaignId/summary',
    {
      schema: {
        tags: ['Campaigns'],
        operationId: 'getCampaignSummary',
        summary: 'Counts and amounts of a campaign derived from its stored records, optionally within whole UTC days',
        params: CampaignParams,
        querystring: CampaignSummaryQuery,
        response: { 200: CampaignSummary, ...errorResponses(404) },
      },
    },
    async (request) => campaignSummary(deps, actorOf(request), request.params.campaignId, request.query),
  );

  app.get(
    '/v1/campaigns/:campaignId/transactions',
    {
      schema: {
        tags: ['Campaigns'],
        operationId: 'listCampaignTransactions',
        summary: "List the balance transactions of a campaign's cards, newest first (gift cards or loyalty cards)",
        params: CampaignParams,
        querystring: CampaignTransactionsQuery,
        response: { 200: TransactionList, ...errorResponses(404) },
      },
    },
    async (request) => campaignTransactions(deps, actorOf(request), request.params.campaignId, request.query),
  );

  app.post(
    '/v1/campaigns/:campaignId/transactions/export',
    {
      schema: {
        tags: ['Campaigns'],
        operationId: 'exportCampaignTransactions',
        summary: "Schedule a CSV export of a campaign's card transactions (a voucher_transactions export limited to the campaign)",
        params: CampaignParams,
        body: ScopedExportBody,
        response: { 200: ExportObject, ...errorResponses(404) },
      },
    },
    async (request) => exportCampaignTransactions(deps, actorOf(request), request.params.campaignId, request.body),
  );
}
