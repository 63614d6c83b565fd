import { Anchor, Box, Center, Container, Group, Image, Loader, Stack, Text, Title } from '@mantine/core';
import { createContext, useContext, type ReactNode } from 'react';
import { CockpitError, linkToken, type Brand } from './api.ts';

// The frame of both pages: the shop's name, logo and colour on top, its contact and links below.

/**
 * True where the pages are drawn inside the console as a preview with sample data: the frame is not a
 * whole page (no page-height minimum, no page landmarks), its navigation goes nowhere, and nothing calls
 * the cockpit API (the sample belongs to no link).
 */
export const SamplePreview = createContext(false);

function PageLink({ href, current, children }: { href: string; current: boolean; children: ReactNode }) {
  const preview = useContext(SamplePreview);
  const look = { c: 'white', fw: current ? 700 : 400 } as const;
  if (preview)
    return (
      <Text component="span" {...look} td={current ? 'underline' : undefined}>
        {children}
      </Text>
    );
  return (
    <Anchor href={href} {...look} underline={current ? 'always' : 'hover'}>
      {children}
    </Anchor>
  );
}

export function Shell({ brand, page, children }: { brand: Brand; page: 'wallet' | 'preferences'; children: ReactNode }) {
  const preview = useContext(SamplePreview);
  const token = encodeURIComponent(linkToken());
  // A preview's outside links open beside the console rather than replacing it.
  const away = preview ? ({ target: '_blank' } as const) : {};
  return (
    <Box mih={preview ? undefined : '100vh'} bg="gray.0">
      <Box component={preview ? 'div' : 'header'} data-testid="cockpit-header" style={{ background: brand.primary_color, color: 'white' }} py="md">
        <Container size="xs">
          <Group justify="space-between" wrap="nowrap">
            <Group gap="sm" wrap="nowrap">
              {brand.logo_url && <Image src={brand.logo_url} alt="" h={36} w="auto" fit="contain" referrerPolicy="no-referrer" />}
              <Title order={1} size="h3" c="white">
                {brand.name}
              </Title>
            </Group>
            <Group gap="md" wrap="nowrap" component="nav" aria-label="Cockpit">
              <PageLink href={`/cockpit#token=${token}`} current={page === 'wallet'}>
                Wallet
              </PageLink>
              <PageLink href={`/cockpit/preferences#token=${token}`} current={page === 'preferences'}>
                Preferences
              </PageLink>
            </Group>
          </Group>
        </Container>
      </Box>
      <Container size="xs" py="md" component={preview ? 'div' : 'main'}>
        {children}
      </Container>
      <Container size="xs" pb="xl" component={preview ? 'div' : 'footer'}>
        <Stack gap={4}>
          {(brand.contact.email || brand.contact.phone) && (
            <Text size="sm" c="dimmed">
              Questions? {brand.contact.email && <Anchor href={`mailto:${brand.contact.email}`}>{brand.contact.email}</Anchor>}
              {brand.contact.email && brand.contact.phone && ' · '}
              {brand.contact.phone && <Anchor href={`tel:${brand.contact.phone.replace(/\s+/g, '')}`}>{brand.contact.phone}</Anchor>}
            </Text>
          )}
          {brand.address && (
            <Text size="sm" c="dimmed">
              {brand.address}
            </Text>
          )}
          <Group gap="md">
            {brand.website_url && (
              <Anchor size="sm" href={brand.website_url} rel="noreferrer" {...away}>
                Website
              </Anchor>
            )}
            {brand.privacy_policy_url && (
              <Anchor size="sm" href={brand.privacy_policy_url} rel="noreferrer" {...away}>
                Privacy policy
              </Anchor>
            )}
            {brand.terms_of_use_url && (
              <Anchor size="sm" href={brand.terms_of_use_url} rel="noreferrer" {...away}>
                Terms of use
              </Anchor>
            )}
          </Group>
        </Stack>
      </Container>
    </Box>
  );
}

export function Loading() {
  return (
    <Center mih="60vh">
      <Loader aria-label="Loading" />
    </Center>
  );
}

/** A plain page for a link that opens nothing: it names no shop and no customer. */
export function LinkError({ error }: { error: unknown }) {
  const status = error instanceof CockpitError ? error.status : 0;
  const [title, text] =
    status === 401
      ? ['This link does not work', 'It may be mistyped or incomplete, or the shop has sent you a newer link. Ask the shop for a new one.']
      : status === 429
        ? ['Too many attempts', 'Please wait a few minutes, then open your link again.']
        : ['Something went wrong', 'Please try again in a moment.'];
  return (
    <Container size="xs" py={64}>
      <Stack gap="sm" role="alert">
        <Title order={1} size="h2">
          {title}
        </Title>
        <Text>{text}</Text>
      </Stack>
    </Container>
  );
}
