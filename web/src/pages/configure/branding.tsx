import { Anchor, Badge, Box, Button, Card, Grid, Group, Loader, SegmentedControl, SimpleGrid, Stack, Text, TextInput, Textarea, Title } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { Link } from 'react-router';
import { api } from '../../api/client.ts';
import { useCan, useSession } from '../../app/session.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { confirmThen, useFormSubmit } from '../../components/forms.tsx';
import { notifyDone } from '../../components/notify.ts';
import { PageHeader } from '../../components/PageHeader.tsx';
import { COLOR, DEFAULT_ACCENT, DEFAULT_PRIMARY, previewBrand, sampleWallet, type BrandingValues } from '../../cockpit/sample.ts';
import { SamplePreview } from '../../cockpit/Shell.tsx';
import { WalletView } from '../../cockpit/WalletPage.tsx';

// The project's cockpit branding (management API `…/branding`, one per project): the name, logo, colours,
// contact, address and links the customer cockpit shows. Beside the form, the cockpit's own wallet page is
// drawn with a sample customer's cards from what is typed, before it is saved. An ADMIN edits; a role
// that may only read sees the values. Saving creates the branding when there is none, else sends only the
// members that changed; removing it sends the cockpit back to the project's name and default colours.

const ROUTE = '/management/v1/projects/:projectId/branding';

type Section = keyof BrandingValues;
type Stored = { [S in Section]: { [K in keyof BrandingValues[S]]: string | null } };
interface BrandingObject extends Stored {
  id: string;
  created_at: string;
  updated_at: string | null;
}

interface Field {
  key: string;
  label: string;
  description?: string;
  placeholder?: string;
  kind?: 'color' | 'long';
}

const GROUPS: Array<{ section: Section; title: string; fields: Field[] }> = [
  {
    section: 'brand',
    title: 'Brand',
    fields: [
      { key: 'name', label: 'Name', description: "The cockpit's title; empty: the project's name" },
      { key: 'website_url', label: 'Website', placeholder: 'https://shop.example.com' },
      { key: 'privacy_policy_url', label: 'Privacy policy', placeholder: 'https://shop.example.com/privacy' },
      { key: 'terms_of_use_url', label: 'Terms of use', placeholder: 'https://shop.example.com/terms' },
      { key: 'permission_reminder', label: 'Permission reminder', description: 'Shown above the consents in the preference center', kind: 'long' },
    ],
  },
  {
    section: 'cockpit',
    title: 'Cockpit look',
    fields: [
      { key: 'logo_url', label: 'Logo URL', description: 'A full https address of the image', placeholder: 'https://cdn.example.com/logo.png' },
      { key: 'primary_color', label: 'Primary colour', description: 'Header and buttons', placeholder: `${DEFAULT_PRIMARY} (default)`, kind: 'color' },
      { key: 'accent_color', label: 'Accent colour', description: 'Balances and highlights', placeholder: `${DEFAULT_ACCENT} (default)`, kind: 'color' },
    ],
  },
  {
    section: 'contact',
    title: 'Contact',
    fields: [
      { key: 'email', label: 'E-mail', placeholder: 'hello@shop.example.com' },
      { key: 'phone', label: 'Phone' },
    ],
  },
  {
    section: 'address',
    title: 'Address',
    fields: [
      { key: 'street', label: 'Street' },
      { key: 'postal', label: 'Postal code' },
      { key: 'city', label: 'City' },
      { key: 'state', label: 'State or region' },
      { key: 'country', label: 'Country' },
    ],
  },
];

/** Form field → API path: the error's `details` name the member (`Property .brand.website_url …`). */
const ERROR_FIELDS = Object.fromEntries(GROUPS.flatMap((g) => g.fields.map((f) => [`${g.section}.${f.key}`, `${g.section}.${f.key}`])));

function valuesOf(stored: BrandingObject | null): BrandingValues {
  const out = {} as Record<Section, Record<string, string>>;
  for (const group of GROUPS) {
    const section: Record<string, string | null> = stored?.[group.section] ?? {};
    out[group.section] = Object.fromEntries(group.fields.map((f) => [f.key, section[f.key] ?? '']));
  }
  return out as unknown as BrandingValues;
}

/**
 * The request body: on creation the members given; on a change only the members that differ from the
 * stored ones (an emptied member is sent as null, which clears it). Null when nothing changed.
 */
function bodyOf(values: BrandingValues, stored: BrandingObject | null): Record<string, Record<string, string | null>> | null {
  const body: Record<string, Record<string, string | null>> = {};
  for (const group of GROUPS) {
    for (const field of group.fields) {
      const now = (values[group.section] as unknown as Record<string, string>)[field.key]?.trim() ?? '';
      const before = (stored?.[group.section] as Record<string, string | null> | undefined)?.[field.key] ?? '';
      if (now === before || (stored === null && now === '')) continue;
      body[group.section] = { ...body[group.section], [field.key]: now === '' ? null : now };
    }
  }
  return Object.keys(body).length === 0 ? null : body;
}

/** The colour to draw: the value once it is #rrggbb, the default when empty, else the last valid one. */
function useDrawnColor(value: string, fallback: string): string {
  const last = useRef(fallback);
  const text = value.trim();
  if (text === '') return fallback;
  if (COLOR.test(text)) last.current = text;
  return last.current;
}

function ColorField({ field, value, readOnly, error, onChange }: { field: Field; value: string; readOnly: boolean; error: string | undefined; onChange: (value: string) => void }) {
  const text = value.trim();
  const valid = COLOR.test(text);
  const typing = text !== '' && !valid;
  return (
    <TextInput
      label={field.label}
      description={field.description}
      placeholder={field.placeholder}
      value={value}
      readOnly={readOnly}
      variant={readOnly ? 'filled' : 'default'}
      onChange={(e) => onChange(e.currentTarget.value)}
      error={error ?? (typing && !readOnly ? 'A colour as #rrggbb; the preview keeps the last valid one' : undefined)}
      leftSectionPointerEvents={readOnly ? 'none' : 'all'}
      leftSection={
        <input
          type="color"
          aria-label={`${field.label}: pick`}
          disabled={readOnly}
          value={valid ? text.toLowerCase() : (field.key === 'primary_color' ? DEFAULT_PRIMARY : DEFAULT_ACCENT)}
          onChange={(e) => onChange(e.currentTarget.value)}
          style={{ width: 22, height: 22, padding: 0, border: 'none', background: 'none', cursor: readOnly ? 'default' : 'pointer' }}
        />
      }
    />
  );
}

function Preview({ values, projectName, currency }: { values: BrandingValues; projectName: string; currency: string }) {
  const primary = useDrawnColor(values.cockpit.primary_color, DEFAULT_PRIMARY);
  const accent = useDrawnColor(values.cockpit.accent_color, DEFAULT_ACCENT);
  const wallet = sampleWallet(previewBrand(values, projectName, currency, { primary, accent }));
  return (
    <Card withBorder padding={0} component="section" aria-label="Cockpit preview">
      <Group gap="xs" p="sm" wrap="nowrap" align="flex-start">
        <Badge variant="light" color="grape" style={{ flexShrink: 0 }}>
          Preview
        </Badge>
        <Text size="xs" c="dimmed">
          The customer's wallet with a sample customer and sample cards, as you type. Customers see it once you save.
        </Text>
      </Group>
      <Box data-testid="cockpit-preview" style={{ borderTop: '1px solid var(--mantine-color-gray-3)', maxHeight: 760, overflowY: 'auto' }}>
        <SamplePreview.Provider value={true}>
          <WalletView wallet={wallet} />
        </SamplePreview.Provider>
      </Box>
    </Card>
  );
}

export function BrandingPage() {
  const { data: session } = useSession();
  const can = useCan();
  const client = useQueryClient();
  const projectId = session?.project.id ?? '';
  const base = `/management/v1/projects/${projectId}/branding`;
  const key = ['branding', projectId];
  const branding = useQuery({
    queryKey: key,
    queryFn: async () => (await api<{ data: BrandingObject[] }>('GET', base)).data[0] ?? null,
  });
  // The gift card's amounts in the project's currency, when the role may read the project.
  const project = useQuery({
    queryKey: ['project', projectId],
    queryFn: () => api<{ currency: string }>('GET', `/management/v1/projects/${projectId}`),
    enabled: can('GET', '/management/v1/projects/:projectId'),
  });
  const [draft, setDraft] = useState<BrandingValues | null>(null);
  const [show, setShow] = useState<'form' | 'preview'>('form');
  const phone = useMediaQuery('(max-width: 62em)');
  const submit = useFormSubmit(ERROR_FIELDS);

  if (branding.isPending) return <Loader aria-label="Loading branding" />;
  if (branding.isError) return <ErrorAlert error={branding.error} />;
  const stored = branding.data;
  const mayWrite = stored ? can('PUT', `${ROUTE}/:brandingId`) : can('POST', ROUTE);
  const mayRemove = stored !== null && can('DELETE', `${ROUTE}/:brandingId`);
  const values = draft ?? valuesOf(stored);
  const changes = bodyOf(values, stored);
  const projectName = session?.project.name ?? '';

  const set = (section: Section, field: string, value: string) => setDraft({ ...values, [section]: { ...values[section], [field]: value } });
  const save = submit.submit(async () => {
    if (changes === null) return;
    const saved = stored ? await api<BrandingObject>('PUT', `${base}/${stored.id}`, changes) : await api<BrandingObject>('POST', base, changes);
    client.setQueryData(key, saved);
    setDraft(null);
    notifyDone(stored ? 'Branding saved' : 'Branding created');
  });
  const remove = () =>
    confirmThen({
      title: 'Remove the cockpit branding?',
      body: `The cockpit goes back to the project's name (${projectName}) and the default colours, without a logo, contact details, address or links.`,
      confirm: 'Remove branding',
      failed: 'The branding was not removed',
      done: 'Branding removed',
      action: async () => {
        if (!stored) return;
        await api('DELETE', `${base}/${stored.id}`);
        client.setQueryData(key, null);
        setDraft(null);
        submit.setError(null);
      },
    });

  const form = (
    <Stack component="form" onSubmit={(e: React.FormEvent) => void save(e)} aria-label="Cockpit branding">
      {!stored && (
        <Text size="sm" c="dimmed" data-testid="no-branding">
          No branding yet: the cockpit shows the project's name and the default colours.
        </Text>
      )}
      {!mayWrite && (
        <Text size="sm" c="dimmed">
          Your role may read the branding; an admin changes it.
        </Text>
      )}
      {GROUPS.map((group) => (
        <Card withBorder key={group.section} component="fieldset" style={{ margin: 0 }}>
          <Title order={2} size="h5" mb="sm" component="legend" style={{ float: 'left', width: '100%' }}>
            {group.title}
          </Title>
          <SimpleGrid cols={{ base: 1, sm: group.section === 'brand' ? 1 : 2 }} style={{ clear: 'both' }}>
            {group.fields.map((field) => {
              const name = `${group.section}.${field.key}`;
              const value = (values[group.section] as unknown as Record<string, string>)[field.key] ?? '';
              const common = {
                label: field.label,
                description: field.description,
                placeholder: mayWrite ? field.placeholder : undefined,
                value,
                readOnly: !mayWrite,
                variant: mayWrite ? 'default' : 'filled',
                error: submit.errorFor(name),
              } as const;
              if (field.kind === 'color')
                return <ColorField key={name} field={field} value={value} readOnly={!mayWrite} error={submit.errorFor(name)} onChange={(v) => set(group.section, field.key, v)} />;
              if (field.kind === 'long') return <Textarea key={name} {...common} autosize minRows={2} onChange={(e) => set(group.section, field.key, e.currentTarget.value)} />;
              return <TextInput key={name} {...common} onChange={(e) => set(group.section, field.key, e.currentTarget.value)} />;
            })}
          </SimpleGrid>
        </Card>
      ))}
      {submit.formError !== null && <ErrorAlert error={submit.formError} title="The branding was not saved" />}
      {(mayWrite || mayRemove) && (
        <Group justify="space-between">
          <Group gap="xs">
            {mayWrite && (
              <Button type="submit" loading={submit.busy} disabled={changes === null}>
                {stored ? 'Save' : 'Create branding'}
              </Button>
            )}
            {mayWrite && draft !== null && (
              <Button
                variant="default"
                onClick={() => {
                  setDraft(null);
                  submit.setError(null);
                }}
              >
                Discard changes
              </Button>
            )}
          </Group>
          {mayRemove && (
            <Button variant="light" color="red" onClick={remove}>
              Remove branding
            </Button>
          )}
        </Group>
      )}
    </Stack>
  );
  const preview = <Preview values={values} projectName={projectName} currency={project.data?.currency ?? ''} />;

  return (
    <>
      <Anchor component={Link} to="/configure" size="sm" display="inline-block" mb={4}>
        ← Setup
      </Anchor>
      <PageHeader title="Cockpit branding" description="The name, look, contact details and links customers see on their cockpit (wallet and preference center)." />
      {phone ? (
        <Stack>
          <SegmentedControl
            fullWidth
            value={show}
            onChange={(v) => setShow(v as 'form' | 'preview')}
            data={[
              { value: 'form', label: mayWrite ? 'Edit' : 'Values' },
              { value: 'preview', label: 'Preview' },
            ]}
            aria-label="Show"
          />
          {/* Both stay mounted: the preview remembers the last valid colour while the form is shown. */}
          <Box display={show === 'form' ? undefined : 'none'}>{form}</Box>
          <Box display={show === 'preview' ? undefined : 'none'}>{preview}</Box>
        </Stack>
      ) : (
        <Grid gap="lg" align="flex-start">
          <Grid.Col span={7}>{form}</Grid.Col>
          <Grid.Col span={5} style={{ position: 'sticky', top: 72 }}>
            {preview}
          </Grid.Col>
        </Grid>
      )}
    </>
  );
}
