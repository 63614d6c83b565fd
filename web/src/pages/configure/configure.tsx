import { Card, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { Link } from 'react-router';
import { useCan } from '../../app/session.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';

// Definitions the rest of the console builds on, each shown only to a role that may read it.

const SECTIONS = [
  { to: '/validation-rules', title: 'Validation rules', text: 'Conditions on orders, customers and redemptions, assigned to campaigns, tiers, vouchers and earning rules.', route: '/v1/validation-rules' },
  { to: '/segments', title: 'Segments', text: 'Groups of customers, picked one by one or kept up to date by a filter.', route: '/v1/segments' },
  { to: '/metadata-schemas', title: 'Metadata schemas', text: 'The metadata properties each kind of object may carry, with their types.', route: '/management/v1/projects/:projectId/metadata-schemas' },
  { to: '/consents', title: 'Consents', text: 'What customers may opt in to or out of, and how the options are grouped.', route: '/management/v1/projects/:projectId/consents' },
  { to: '/configure/branding', title: 'Cockpit branding', text: "The name, logo, colours and contact details on customers' cockpit, with a live preview.", route: '/management/v1/projects/:projectId/branding' },
];

export function ConfigurePage() {
  const can = useCan();
  return (
    <>
      <PageHeader title="Setup" description="Rules, segments, definitions used across campaigns and customers, and the look of the customer cockpit." />
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        {SECTIONS.filter((s) => can('GET', s.route)).map((s) => (
          <Card key={s.to} withBorder component={Link} to={s.to}>
            <Stack gap={4}>
              <Title order={2} size="h5">
                {s.title}
              </Title>
              <Text size="sm" c="dimmed">
                {s.text}
              </Text>
            </Stack>
          </Card>
        ))}
      </SimpleGrid>
    </>
  );
}
