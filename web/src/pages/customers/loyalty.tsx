import { Badge, Button, Card, Collapse, Group, NumberInput, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { api, listOf, withQuery } from '../../api/client.ts';
import { useCan } from '../../app/session.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { dateTime } from '../../components/format.ts';
import { useFormSubmit } from '../../components/forms.tsx';
import { notifyDone } from '../../components/notify.ts';
import type { Voucher } from '../vouchers/list.tsx';

// Her loyalty cards: balance, the history of points (GET /v1/loyalties/{campaign}/members/{code}/
// transactions, newest first) and, for roles that may, points added or taken with a reason.

interface Transaction {
  id: string;
  type: string;
  reason: string | null;
  source: string | null;
  created_at: string;
  details: { balance?: { points?: number; balance?: number } };
}

const HISTORY = 10;

function PointsAdjuster({ card, onDone }: { card: Voucher; onDone: () => Promise<unknown> }) {
  const [points, setPoints] = useState<number | string>('');
  const [reason, setReason] = useState('');
  const form = useFormSubmit({ points: 'points', reason: 'reason' });
  const submit = form.submit(async () => {
    await api('POST', `/v1/loyalties/members/${encodeURIComponent(card.code)}/balance`, { points: Number(points), ...(reason ? { reason } : {}) });
    notifyDone(`${points} points on ${card.code}`);
    setPoints('');
    setReason('');
    await onDone();
  });
  return (
    <form onSubmit={(e) => void submit(e)}>
      <Group align="flex-start" gap="xs" wrap="wrap">
        <NumberInput aria-label={`Points for ${card.code}`} placeholder="± points" value={points} onChange={setPoints} w={110} size="xs" error={form.errorFor('points')} />
        <TextInput aria-label={`Reason for ${card.code}`} placeholder="Reason" value={reason} onChange={(e) => setReason(e.currentTarget.value)} style={{ flex: '1 1 140px' }} size="xs" error={form.errorFor('reason')} />
        <Button type="submit" size="xs" variant="light" loading={form.busy}>
          Adjust
        </Button>
      </Group>
      <ErrorAlert error={form.formError} />
    </form>
  );
}

function PointHistory({ card }: { card: Voucher }) {
  const history = useQuery({
    queryKey: ['card-transactions', card.code],
    enabled: card.campaign_id !== null,
    queryFn: async () =>
      listOf<Transaction>(await api('GET', withQuery(`/v1/loyalties/${card.campaign_id}/members/${encodeURIComponent(card.code)}/transactions`, { limit: HISTORY }))),
  });
  if (history.error) return <ErrorAlert error={history.error} />;
  const rows = history.data?.items ?? [];
  if (history.data && rows.length === 0) return <Text size="xs" c="dimmed">No points moved yet.</Text>;
  return (
    <Table aria-label={`Point history of ${card.code}`} fz="xs" verticalSpacing={4}>
      <Table.Tbody>
        {rows.map((t) => {
          const moved = t.details.balance?.points ?? 0;
          return (
            <Table.Tr key={t.id}>
              <Table.Td>{dateTime(t.created_at)}</Table.Td>
              <Table.Td style={{ overflowWrap: 'anywhere' }}>{t.reason ?? t.type.toLowerCase().replaceAll('_', ' ')}</Table.Td>
              <Table.Td ta="right" c={moved < 0 ? 'red' : 'green'}>
                {moved > 0 ? `+${moved}` : moved}
              </Table.Td>
              <Table.Td ta="right" c="dimmed">
                {t.details.balance?.balance ?? ''}
              </Table.Td>
            </Table.Tr>
          );
        })}
      </Table.Tbody>
    </Table>
  );
}

function LoyaltyCard({ card, onChanged }: { card: Voucher; onChanged: () => Promise<unknown> }) {
  const can = useCan();
  const [open, setOpen] = useState(true);
  return (
    <Stack gap={4}>
      <Group justify="space-between" gap="xs">
        <Group gap="xs">
          <Link to={`/vouchers/${encodeURIComponent(card.code)}`}>
            <code>{card.code}</code>
          </Link>
          <Text size="xs" c="dimmed">
            {card.campaign}
          </Text>
        </Group>
        <Badge variant="light" data-testid={`balance-${card.code}`}>
          {card.loyalty_card?.balance ?? 0} points
        </Badge>
      </Group>
      {can('POST', '/v1/loyalties/members/:memberId/balance') && <PointsAdjuster card={card} onDone={onChanged} />}
      <Button variant="subtle" size="compact-xs" onClick={() => setOpen(!open)} aria-expanded={open} w="fit-content">
        {open ? 'Hide point history' : 'Point history'}
      </Button>
      <Collapse expanded={open}>
        <PointHistory card={card} />
      </Collapse>
    </Stack>
  );
}

export function LoyaltyCardsCard({ cards, customerKey }: { cards: Voucher[]; customerKey: string }) {
  const client = useQueryClient();
  const refresh = () =>
    Promise.all([
      client.invalidateQueries({ queryKey: ['customer-vouchers'] }),
      client.invalidateQueries({ queryKey: ['card-transactions'] }),
      client.invalidateQueries({ queryKey: ['customer', customerKey] }),
    ]);
  return (
    <Card withBorder>
      <Title order={2} size="h5" mb="xs">
        Loyalty cards
      </Title>
      {cards.length === 0 && (
        <Text size="sm" c="dimmed">
          No loyalty card.
        </Text>
      )}
      <Stack gap="lg">
        {cards.map((card) => (
          <LoyaltyCard key={card.id} card={card} onChanged={refresh} />
        ))}
      </Stack>
    </Card>
  );
}
