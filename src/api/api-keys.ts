import Type from 'typebox';

// A project's application keys (Punchcard extension of the management API): ids only; the secret of a
// key is answered once, by the rotation that issues it.

export const ApiKeyObject = Type.Object({
  object: Type.Literal('api_key'),
  id: Type.String({ description: 'key_…' }),
  app_id: Type.String({ description: 'What requests send as X-App-Id (server) or X-Client-Application-Id (client)' }),
  kind: Type.Union([Type.Literal('server'), Type.Literal('client')]),
  name: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
  fixed_by_environment: Type.Boolean({ description: 'Set by the server\'s environment variables; rotate it there, not through the API' }),
});

export const ApiKeyList = Type.Object({
  object: Type.Literal('list'),
  data_ref: Type.Literal('data'),
  data: Type.Array(ApiKeyObject),
  total: Type.Integer(),
});

export const RotatedApiKey = Type.Intersect([
  ApiKeyObject,
  Type.Object({
    app_token: Type.String({ description: 'The new secret, shown only in this answer (stored hashed)' }),
    replaces: Type.String({ description: 'app_id of the key this one replaces, which no longer works' }),
  }),
]);
