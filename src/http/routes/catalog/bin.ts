import type { RouteContext, TypedApp } from '../../route-context.ts';
import * as bin from '../../../services/catalog/bin.ts';
import { actorOf } from '../../plugins/auth.ts';
import { noContent } from '../../reply.ts';
import { BinEntryParams, BinList, BinListQuery } from '../../../api/bin.ts';
import { errorResponses, NoContent } from '../../../api/common.ts';

const tags = ['Bin'];

export function registerBinRoutes(app: TypedApp, { deps }: RouteContext): void {
  app.get(
    '/v1/trash-bin',
    {
      schema: {
        tags,
        operationId: 'listBinEntries',
        summary: 'List bin entries (resources deleted without force), paged by entry id',
        querystring: BinListQuery,
        response: { 200: BinList, ...errorResponses() },
      },
    },
    async (request) => {
      const page = await bin.listBinEntries(deps, actorOf(request).projectId, request.query);
      const last = page.data[page.data.length - 1];
      return {
        object: 'list' as const,
        data_ref: 'data' as const,
        data: page.data,
        // The vendor counts the entries of this page here, not all matches.
        total: page.data.length,
        has_more: page.hasMore,
        ...(page.hasMore && last ? { more_starting_after: last.id } : {}),
      };
    },
  );

  app.delete(
    '/v1/trash-bin/:binEntryId',
    {
      schema: {
        tags,
        operationId: 'deleteBinEntry',
        summary: 'Delete a bin entry and the resource in it for good; a product goes with all its SKUs',
        params: BinEntryParams,
        response: { 204: NoContent, ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      await bin.deleteBinEntry(deps, actorOf(request), request.params.binEntryId);
      return noContent(reply);
    },
  );
}
