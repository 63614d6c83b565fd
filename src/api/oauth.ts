import Type from 'typebox';

export const TokenRequest = Type.Object({
  grant_type: Type.Optional(Type.String({ description: 'Only client_credentials' })),
  scope: Type.Optional(Type.String({ description: 'Scope names separated by single spaces (never commas)' })),
});

export const AccessTokenForm = Type.Object({
  access_token: Type.Optional(Type.String({ description: 'A token issued to this project' })),
});

const TokenFields = {
  access_token: Type.String(),
  client_id: Type.String({ description: 'App id of the key that generated the token' }),
  expires_at: Type.Integer({ description: 'Unix time in seconds' }),
  expires_in: Type.Integer({ description: 'Seconds left' }),
  scope: Type.String(),
  token_type: Type.Literal('Bearer'),
};

export const TokenRecord = Type.Object(TokenFields);

export const Introspection = Type.Union([
  Type.Object({ active: Type.Literal(true), ...TokenFields }),
  Type.Object({ active: Type.Literal(false) }),
]);
