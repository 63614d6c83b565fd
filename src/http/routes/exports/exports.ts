import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import type { RouteContext, TypedApp } from '../../route-context.ts';
import * as exports from '../../../services/exports/exports.ts';
import { actorOf } from '../../plugins/auth.ts';
import { noContent } from '../../reply.ts';
import { errorResponses, IdParams, NoContent } from '../../../api/common.ts';
import { CreateExportBody, CsvFile, ExportGetQuery, ExportList, ExportObject, ListExportsQuery } from '../../../api/exports.ts';

const tags = ['Exports'];
const ExportParams = IdParams('exportId', 'Export id (exp_…)');

export function registerExportRoutes(app: TypedApp, { deps }: RouteContext): void {
  app.post(
    '/v1/exports',
    {
      schema: {
        tags,
        operationId: 'createExport',
        summary: 'Schedule a CSV export: vouchers, redemptions, customers, publications, orders, points buckets or card transactions',
        body: CreateExportBody,
        response: { 200: ExportObject, ...errorResponses(404) },
      },
    },
    async (request) => exports.createExport(deps, actorOf(request), request.body),
  );

  app.get(
    '/v1/exports',
    {
      schema: {
        tags,
        operationId: 'listExports',
        summary: 'List exports, newest first by default, in pages',
        querystring: ListExportsQuery,
        response: { 200: ExportList, ...errorResponses() },
      },
    },
    async (request) => exports.listExports(deps, actorOf(request), request.query),
  );

  // One path, two answers (DECISIONS 25): with `token` the CSV file of a finished export (the vendor's
  // download host), without it the export object under the usual credentials.
  app.get(
    '/v1/exports/:exportId',
    {
      config: { auth: 'server-or-download-token' },
      // The CSV download streams from the database with its exact Content-Length (clients show progress
      // and resume); the export object it shares the path with is small.
      compress: false,
      schema: {
        tags,
        operationId: 'getExport',
        summary: 'Get an export; with the token of its result.url, download its CSV file instead (no API keys needed)',
        params: ExportParams,
        querystring: ExportGetQuery,
        response: {
          200: { description: 'The export, or with `token` its CSV file', content: { 'application/json': { schema: ExportObject }, 'text/plain': { schema: CsvFile } } },
          ...errorResponses(404),
        },
      },
    },
    async (request, reply) => {
      const { exportId } = request.params;
      const { token } = request.query;
      if (token === undefined) return exports.getExport(deps, actorOf(request), exportId);
      const principal = request.principal;
      const callerProjectId = principal && principal.kind !== 'management' ? principal.projectId : null;
      const file = await exports.openDownload(deps, { exportId, token, callerProjectId });
      // Chunk by chunk from the database: a download of any size holds one chunk in memory. The typed reply
      // only knows the JSON body; a stream is sent through the untyped one.
      return (reply as FastifyReply)
        .type('text/plain; charset=utf-8')
        .header('Content-Disposition', `attachment; filename="${file.filename}"`)
        .header('Content-Length', String(file.bytes))
        .send(Readable.from(file.chunks, { objectMode: false }));
    },
  );

  app.delete(
    '/v1/exports/:exportId',
    {
      schema: {
        tags,
        operationId: 'deleteExport',
        summary: 'Delete an export and its file',
        params: ExportParams,
        response: { 204: NoContent, ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      await exports.deleteExport(deps, actorOf(request), request.params.exportId);
      return noContent(reply);
    },
  );
}
