import Type from 'typebox';
import type { RouteContext, TypedApp } from '../../route-context.ts';
import * as templates from '../../../services/campaign-templates/campaign-templates.ts';
import { actorOf, managementActorOf } from '../../plugins/auth.ts';
import { noContent } from '../../reply.ts';
import {
  CampaignSetupBody,
  CampaignSetupObject,
  CampaignTemplateList,
  CampaignTemplateObject,
  CopyCampaignTemplateBody,
  CreateCampaignTemplateBody,
  ListCampaignTemplatesQuery,
  TierSetupBody,
  TierSetupObject,
  UpdateCampaignTemplateBody,
} from '../../../api/campaign-templates.ts';
import { errorResponses, IdParams, NoContent } from '../../../api/common.ts';

// Campaign templates (vendor /v1/templates/campaigns…, scope `templates`) and the management API's list
// and copy of a project's templates.

const tags = ['Campaign templates'];
const TemplateParams = IdParams('campaignTemplateId', 'Campaign template id (camp_tpl_…)');
const ProjectParams = IdParams('projectId', 'Project id (proj_…)');
const ProjectTemplateParams = Type.Object({ projectId: Type.String({ minLength: 1 }), campaignTemplateId: Type.String({ minLength: 1, description: 'camp_tpl_…' }) });

export function registerCampaignTemplateRoutes(app: TypedApp, { deps }: RouteContext): void {
  app.get(
    '/v1/templates/campaigns',
    {
      schema: {
        tags,
        operationId: 'listCampaignTemplates',
        summary: 'List campaign templates, oldest first by default, with an id cursor and filters',
        querystring: ListCampaignTemplatesQuery,
        response: { 200: CampaignTemplateList, ...errorResponses() },
      },
    },
    async (request) => templates.listTemplates(deps, actorOf(request).projectId, request.query),
  );

  app.post(
    '/v1/templates/campaigns',
    {
      schema: {
        tags,
        operationId: 'createCampaignTemplate',
        summary: "Keep a discount or gift campaign's configuration (or a promotion tier's) and its validation rules as a named template",
        body: CreateCampaignTemplateBody,
        response: { 200: CampaignTemplateObject, ...errorResponses(404, 409) },
      },
    },
    async (request) => templates.createTemplate(deps, actorOf(request), request.body),
  );

  app.get(
    '/v1/templates/campaigns/:campaignTemplateId',
    {
      schema: { tags, operationId: 'getCampaignTemplate', summary: 'Get a campaign template', params: TemplateParams, response: { 200: CampaignTemplateObject, ...errorResponses(404) } },
    },
    async (request) => templates.getTemplate(deps, actorOf(request), request.params.campaignTemplateId),
  );

  app.put(
    '/v1/templates/campaigns/:campaignTemplateId',
    {
      schema: {
        tags,
        operationId: 'updateCampaignTemplate',
        summary: "Rename a campaign template or change its description",
        params: TemplateParams,
        body: UpdateCampaignTemplateBody,
        response: { 200: CampaignTemplateObject, ...errorResponses(404, 409) },
      },
    },
    async (request) => templates.updateTemplate(deps, actorOf(request), request.params.campaignTemplateId, request.body),
  );

  app.delete(
    '/v1/templates/campaigns/:campaignTemplateId',
    {
      schema: {
        tags,
        operationId: 'deleteCampaignTemplate',
        summary: 'Delete a campaign template for good (what was made from it stays)',
        params: TemplateParams,
        response: { 204: NoContent, ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      await templates.deleteTemplate(deps, actorOf(request), request.params.campaignTemplateId);
      return noContent(reply);
    },
  );

  app.post(
    '/v1/templates/campaigns/:campaignTemplateId/campaign-setup',
    {
      schema: {
        tags,
        operationId: 'createCampaignFromTemplate',
        summary: "Create a campaign from a template, with copies of its validation rules; members sent replace the template's",
        params: TemplateParams,
        body: CampaignSetupBody,
        response: { 200: CampaignSetupObject, ...errorResponses(404, 409) },
      },
    },
    async (request) => templates.setUpCampaign(deps, actorOf(request), request.params.campaignTemplateId, request.body),
  );

  app.post(
    '/v1/templates/campaigns/:campaignTemplateId/tier-setup',
    {
      schema: {
        tags,
        operationId: 'addPromotionTierFromTemplate',
        summary: "Add a promotion tier to a PROMOTION campaign from a discount template (its discount, copies of its validation rules)",
        params: TemplateParams,
        body: TierSetupBody,
        response: { 200: TierSetupObject, ...errorResponses(404) },
      },
    },
    async (request) => templates.setUpTier(deps, actorOf(request), request.params.campaignTemplateId, request.body),
  );

  app.get(
    '/management/v1/projects/:projectId/templates/campaigns',
    {
      schema: {
        tags: ['Management: campaign templates'],
        operationId: 'listProjectCampaignTemplates',
        summary: "List a project's campaign templates",
        params: ProjectParams,
        querystring: ListCampaignTemplatesQuery,
        response: { 200: CampaignTemplateList, ...errorResponses(404) },
      },
    },
    async (request) => templates.listProjectTemplates(deps, request.params.projectId, request.query),
  );

  app.post(
    '/management/v1/projects/:projectId/templates/campaigns/:campaignTemplateId/copy',
    {
      schema: {
        tags: ['Management: campaign templates'],
        operationId: 'copyCampaignTemplate',
        summary: 'Copy a campaign template into another project under a new name; its validation rules are made there when it is used',
        params: ProjectTemplateParams,
        body: CopyCampaignTemplateBody,
        response: { 200: CampaignTemplateObject, ...errorResponses(404, 409) },
      },
    },
    async (request) => templates.copyTemplate(deps, managementActorOf(request), request.params.projectId, request.params.campaignTemplateId, request.body),
  );
}
