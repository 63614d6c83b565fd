import type { FastifyReply } from 'fastify';

/** 204 with no body, as the vendor answers most deletes. */
export function noContent(reply: FastifyReply): FastifyReply {
  return reply.code(204).send();
}
