import Type from 'typebox';
import type { RouteContext, TypedApp } from '../../route-context.ts';
import * as campaigns from '../../../services/campaigns/campaigns.ts';
import { actorOf } from '../../plugins/auth.ts';
import {
  AddVouchersBody,
  AddVouchersQuery,
  AsyncActionAccepted,
  CampaignList,
  CampaignObject,
  CreateCampaignBody,
  DeleteCampaignQuery,
  ListCampaignsQuery,
  UpdateCampaignBody,
} from '../../../api/campaigns.ts';
import { errorResponses, IdParams } from '../../../api/common.ts';

const tags = ['Campaigns'];
const CampaignParams = IdParams('campaignId', 'Campaign id (camp_…) or name');
const VoucherObject = Type.Record(Type.String(), Type.Unknown(), { description: 'Voucher object' });

export function registerCampaignRoutes(app: TypedApp, { deps }: RouteContext): void {
  app.post(
    '/v1/campaigns',
    {
      schema: {
        tags,
        operationId: 'createCampaign',
        summary: 'Create a campaign of any type; up to 1000 vouchers are made at once, more in the background',
        body: CreateCampaignBody,
        response: { 200: CampaignObject, ...errorResponses(404, 409) },
      },
    },
    async (request) => campaigns.createCampaign(deps, actorOf(request), request.body),
  );

  app.get(
    '/v1/campaigns',
    {
      schema: {
        tags,
        operationId: 'listCampaigns',
        summary: 'List campaigns, newest first by default',
        querystring: ListCampaignsQuery,
        response: { 200: CampaignList, ...errorResponses() },
      },
    },
    async (request) => campaigns.listCampaigns(deps, actorOf(request), request.query),
  );

  app.get(
    '/v1/campaigns/:campaignId',
    {
      schema: { tags, operationId: 'getCampaign', summary: 'Get a campaign by id or name', params: CampaignParams, response: { 200: CampaignObject, ...errorResponses(404) } },
    },
    async (request) => campaigns.getCampaign(deps, actorOf(request), request.params.campaignId),
  );

  app.put(
    '/v1/campaigns/:campaignId',
    {
      schema: {
        tags,
        operationId: 'updateCampaign',
        summary: 'Update a campaign; template changes reach its unpublished, unredeemed vouchers',
        params: CampaignParams,
        body: UpdateCampaignBody,
        response: { 200: CampaignObject, ...errorResponses(404) },
      },
    },
    async (request) => campaigns.updateCampaign(deps, actorOf(request), request.params.campaignId, request.body),
  );

  app.delete(
    '/v1/campaigns/:campaignId',
    {
      schema: {
        tags,
        operationId: 'deleteCampaign',
        summary: 'Delete a campaign (to the bin, or for good with force=true); its vouchers follow in the background',
        params: CampaignParams,
        querystring: DeleteCampaignQuery,
        response: { 202: AsyncActionAccepted, ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      const id = await campaigns.deleteCampaign(deps, actorOf(request), request.params.campaignId, request.query.force === true);
      return reply.code(202).send({ async_action_id: id });
    },
  );

  for (const [action, active] of [['enable', true], ['disable', false]] as const) {
    app.post(
      `/v1/campaigns/:campaignId/${action}`,
      {
        schema: {
          tags,
          operationId: `${action}Campaign`,
          summary: active ? 'Enable a campaign' : 'Disable a campaign: its vouchers and tiers cannot be used until enabled',
          params: CampaignParams,
          response: { 200: Type.Object({}, { description: 'Empty object, as the vendor answers' }), ...errorResponses(404) },
        },
      },
      async (request) => {
        await campaigns.setCampaignActive(deps, actorOf(request), request.params.campaignId, active);
        return {};
      },
    );
  }

  app.post(
    '/v1/campaigns/:campaignId/vouchers',
    {
      schema: {
        tags,
        operationId: 'addVouchersToCampaign',
        summary: 'Add vouchers: one answers the voucher (200), more answer an async action (202)',
        params: CampaignParams,
        querystring: AddVouchersQuery,
        body: Type.Optional(AddVouchersBody),
        response: { 200: VoucherObject, 202: AsyncActionAccepted, ...errorResponses(404, 409) },
      },
    },
    async (request, reply) => {
      const count = request.query.vouchers_count ?? 1;
      const body = request.body ?? {};
      if (count === 1) return campaigns.addVoucher(deps, actorOf(request), request.params.campaignId, body.code, body);
      const id = await campaigns.addVouchers(deps, actorOf(request), request.params.campaignId, count, body);
      return reply.code(202).send({ async_action_id: id });
    },
  );

  app.post(
    '/v1/campaigns/:campaignId/vouchers/:code',
    {
      schema: {
        tags,
        operationId: 'addVoucherWithCode',
        summary: 'Add one voucher with the given code',
        params: Type.Object({ campaignId: Type.String({ minLength: 1 }), code: Type.String({ minLength: 1, maxLength: 200 }) }),
        body: Type.Optional(AddVouchersBody),
        response: { 200: VoucherObject, ...errorResponses(404, 409) },
      },
    },
    async (request) => {
      const body = request.body ?? {};
      return campaigns.addVoucher(deps, actorOf(request), request.params.campaignId, request.params.code, body);
    },
  );
}
