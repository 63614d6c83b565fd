import Type from 'typebox';
import { Nullable } from './common.ts';

// Project branding (vendor management `…/branding`) with Punchcard's `cockpit` member: the look of the
// customer cockpit.

const Text = (description?: string) => Type.String({ maxLength: 1000, ...(description ? { description } : {}) });
const In = (description?: string) => Type.Optional(Nullable(Text(description)));

export const BrandIn = Type.Object({
  name: In('Shown as the cockpit\'s title'),
  privacy_policy_url: In('http(s) URL'),
  terms_of_use_url: In('http(s) URL'),
  permission_reminder: In('Shown above the consents in the preference center'),
  website_url: In('http(s) URL (a bare host is read as https)'),
});
export const AddressIn = Type.Object({ street: In(), city: In(), postal: In(), state: In(), country: In() });
export const ContactIn = Type.Object({ email: In('E-mail address'), phone: In() });
export const CockpitIn = Type.Object({
  logo_url: In('Absolute http(s) URL of the logo the cockpit shows'),
  primary_color: In('#rrggbb: header and buttons'),
  accent_color: In('#rrggbb: balances and highlights'),
});

export const BrandingBody = Type.Object({
  brand: Type.Optional(Nullable(BrandIn)),
  address: Type.Optional(Nullable(AddressIn)),
  contact: Type.Optional(Nullable(ContactIn)),
  cockpit: Type.Optional(Nullable(CockpitIn)),
});

const Out = () => Nullable(Type.String());
export const BrandingObject = Type.Object({
  id: Type.String({ description: 'brd_…' }),
  brand: Type.Object({ name: Out(), privacy_policy_url: Out(), terms_of_use_url: Out(), permission_reminder: Out(), website_url: Out() }),
  address: Type.Object({ street: Out(), city: Out(), postal: Out(), state: Out(), country: Out() }),
  contact: Type.Object({ email: Out(), phone: Out() }),
  cockpit: Type.Object({ logo_url: Out(), primary_color: Out(), accent_color: Out() }, { description: 'Punchcard extension: the customer cockpit\'s look' }),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Nullable(Type.String({ format: 'date-time' })),
  object: Type.Literal('branding'),
});

export const BrandingList = Type.Object({
  object: Type.Literal('list'),
  data_ref: Type.Literal('data'),
  data: Type.Array(BrandingObject, { description: 'The project\'s branding: none or one' }),
  total: Type.Integer(),
});
