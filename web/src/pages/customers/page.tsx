import { Button, Loader, Modal, SimpleGrid, Stack } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { api, listOf, withQuery } from '../../api/client.ts';
import { useCan } from '../../app/session.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { confirmThen } from '../../components/forms.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';
import type { Voucher } from '../vouchers/list.tsx';
import { CockpitCard, ConsentsCard } from './contact.tsx';
import { CustomerForm } from './form.tsx';
import { ActivitiesCard, RedemptionsCard, VouchersHeldCard } from './history.tsx';
import { LoyaltyCardsCard } from './loyalty.tsx';
import { OrdersCard } from './orders.tsx';
import { ProfileCard, TotalsCard } from './profile.tsx';
import { customerLabel, customerPath, type Customer } from './types.ts';

// One customer, everything a support agent needs to see and fix about her. The path names her by id or
// by source_id, as the API's does.

export function CustomerPage() {
  const { customerId = '' } = useParams();
  const client = useQueryClient();
  const navigate = useNavigate();
  const can = useCan();
  const [editing, setEditing] = useState(false);
  const customer = useQuery({ queryKey: ['customer', customerId], queryFn: () => api<Customer>('GET', customerPath(customerId)) });
  const id = customer.data?.id;
  const vouchers = useQuery({
    queryKey: ['customer-vouchers', id],
    enabled: Boolean(id),
    queryFn: async () => listOf<Voucher>(await api('GET', withQuery('/v1/vouchers', { customer: id, limit: 50 })), 'vouchers'),
  });

  if (customer.isPending) return <Loader aria-label="Loading customer" />;
  if (customer.isError) return <ErrorAlert error={customer.error} title="Customer not found" />;
  const c = customer.data;
  const held = vouchers.data?.items ?? [];
  const saved = (next: Customer) => {
    client.setQueryData(['customer', customerId], next);
    void client.invalidateQueries({ queryKey: ['customers'] });
  };
  const remove = () =>
    confirmThen({
      title: `Delete ${customerLabel(c)}?`,
      body: `${customerLabel(c)} disappears from lists and searches and her source id becomes free. Her redemptions and orders keep their records.`,
      confirm: `Delete ${customerLabel(c)}`,
      action: async () => {
        await api('DELETE', customerPath(c.id));
        client.removeQueries({ queryKey: ['customer', customerId] });
        await client.invalidateQueries({ queryKey: ['customers'] });
        await navigate('/customers');
      },
      done: `Deleted ${customerLabel(c)}`,
      failed: `${customerLabel(c)} was not deleted`,
    });

  return (
    <Stack>
      <PageHeader
        title={customerLabel(c)}
        description={[c.email, c.phone].filter(Boolean).join(' · ') || undefined}
        actions={
          <>
            {can('PUT', '/v1/customers/:customerId') && (
              <Button variant="default" onClick={() => setEditing(true)}>
                Edit
              </Button>
            )}
            {can('DELETE', '/v1/customers/:customerId') && (
              <Button variant="light" color="red" onClick={remove}>
                Delete…
              </Button>
            )}
          </>
        }
      />
      <TotalsCard customer={c} />
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <ProfileCard customer={c} />
        <Stack>
          <ConsentsCard customer={c} />
          <CockpitCard customer={c} onRotated={saved} />
        </Stack>
      </SimpleGrid>
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <LoyaltyCardsCard cards={held.filter((v) => v.type === 'LOYALTY_CARD')} customerKey={customerId} />
        <OrdersCard customerId={c.id} />
      </SimpleGrid>
      <VouchersHeldCard vouchers={held.filter((v) => v.type !== 'LOYALTY_CARD')} />
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <RedemptionsCard customerId={c.id} />
        <ActivitiesCard customerId={c.id} />
      </SimpleGrid>
      <Modal opened={editing} onClose={() => setEditing(false)} title={`Edit ${customerLabel(c)}`} size="lg">
        <CustomerForm
          customer={c}
          onSaved={(next) => {
            saved(next);
            setEditing(false);
          }}
        />
      </Modal>
    </Stack>
  );
}
