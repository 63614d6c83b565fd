import { ActionIcon, Button, Card, Group, Modal, SimpleGrid, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../api/client.ts';
import { useCan } from '../../app/session.tsx';
import { DataTable } from '../../components/DataTable.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { confirmThen, useFormSubmit } from '../../components/forms.tsx';
import { notifyDone } from '../../components/notify.ts';
import { DiscountFields, discountOf, discountText, discountUpdateOf, discountValueOf, localInputOf, ValidityInputs, validityOf, validityUpdateOf, type DiscountValue, type Validity } from './form-parts.tsx';
import type { Campaign, PromotionTier } from './list.tsx';
import { choiceComplete, choiceOf, ruleIdOf, RulePicker, RuleSummary, type RuleChoice } from './rule-picker.tsx';

// A promotion's tiers in the order they apply, managed through the promotion tier routes: add, edit,
// move up or down (the tiers are renumbered 1, 2, … in the new order), enable/disable and remove. Each
// action is offered only to a role that may call its route.

const TIER_ROUTE = '/v1/promotions/tiers/:promotionTierId';

export function TiersCard({ campaign }: { campaign: Campaign }) {
  const can = useCan();
  const client = useQueryClient();
  const [editing, setEditing] = useState<PromotionTier | 'new' | null>(null);
  const [error, setError] = useState<unknown>(null);
  const tiers = [...(campaign.promotion?.tiers ?? [])].sort((a, b) => a.hierarchy - b.hierarchy);
  const refresh = () => client.invalidateQueries({ predicate: (q) => ['campaign', 'campaigns'].includes(String(q.queryKey[0])) });
  const mayEdit = can('PUT', TIER_ROUTE);
  const mayToggle = can('POST', `${TIER_ROUTE}/enable`) && can('POST', `${TIER_ROUTE}/disable`);
  const mayRemove = can('DELETE', TIER_ROUTE);
  const withActions = mayEdit || mayToggle || mayRemove;

  const run = async (action: () => Promise<unknown>, done: string) => {
    setError(null);
    try {
      await action();
      notifyDone(done);
    } catch (caught) {
      setError(caught);
    } finally {
      await refresh();
    }
  };

  const move = (index: number, delta: -1 | 1) => {
    const order = [...tiers];
    const [moved] = order.splice(index, 1);
    if (!moved) return;
    order.splice(index + delta, 0, moved);
    return run(async () => {
      for (const [i, tier] of order.entries()) if (tier.hierarchy !== i + 1) await api('PUT', `/v1/promotions/tiers/${tier.id}`, { hierarchy: i + 1 });
    }, `${moved.name} moved ${delta < 0 ? 'up' : 'down'}`);
  };

  const remove = (tier: PromotionTier) =>
    confirmThen({
      title: `Remove tier ${tier.name}?`,
      body: 'Orders stop getting its discount at once. Redemptions already made with it stay in the history.',
      confirm: 'Remove tier',
      failed: `${tier.name} was not removed`,
      done: `${tier.name} removed`,
      action: async () => {
        try {
          await api('DELETE', `/v1/promotions/tiers/${tier.id}`);
        } finally {
          await refresh();
        }
      },
    });

  return (
    <Card withBorder>
      <Group justify="space-between" mb="xs" wrap="wrap">
        <Title order={2} size="h5">
          Tiers
        </Title>
        {can('POST', '/v1/promotions/:campaignId/tiers') && (
          <Button size="xs" variant="light" onClick={() => setEditing('new')}>
            Add tier
          </Button>
        )}
      </Group>
      <ErrorAlert error={error} />
      <DataTable columns={withActions ? ['#', 'Tier', 'Discount', 'Rule', 'Status', ''] : ['#', 'Tier', 'Discount', 'Rule', 'Status']} minWidth={520}>
        {tiers.map((tier, i) => (
          <Table.Tr key={tier.id} data-testid={`tier-row-${tier.id}`}>
            <Table.Td>{i + 1}</Table.Td>
            <Table.Td>
              <Text size="sm" fw={500}>
                {tier.name}
              </Text>
              {tier.banner && (
                <Text size="xs" c="dimmed">
                  {tier.banner}
                </Text>
              )}
            </Table.Td>
            <Table.Td>{discountText(tier.action?.discount)}</Table.Td>
            <Table.Td>
              {(tier.validation_rule_assignments?.data ?? []).length === 0 ? (
                <Text size="sm" c="dimmed">
                  every order
                </Text>
              ) : (
                (tier.validation_rule_assignments?.data ?? []).map((a) => <RuleSummary key={a.rule_id} ruleId={a.rule_id} />)
              )}
            </Table.Td>
            <Table.Td>{tier.active ? 'active' : 'disabled'}</Table.Td>
            {withActions && (
              <Table.Td>
                <Group gap={4} wrap="wrap">
                  {mayEdit && (
                    <>
                      <ActionIcon variant="default" size="sm" aria-label={`Move ${tier.name} up`} disabled={i === 0} onClick={() => void move(i, -1)}>
                        ↑
                      </ActionIcon>
                      <ActionIcon variant="default" size="sm" aria-label={`Move ${tier.name} down`} disabled={i === tiers.length - 1} onClick={() => void move(i, 1)}>
                        ↓
                      </ActionIcon>
                      <Button size="compact-xs" variant="light" aria-label={`Edit ${tier.name}`} onClick={() => setEditing(tier)}>
                        Edit
                      </Button>
                    </>
                  )}
                  {mayToggle && (
                    <Button
                      size="compact-xs"
                      variant="default"
                      aria-label={`${tier.active ? 'Disable' : 'Enable'} ${tier.name}`}
                      onClick={() => void run(() => api('POST', `/v1/promotions/tiers/${tier.id}/${tier.active ? 'disable' : 'enable'}`), `${tier.name} ${tier.active ? 'disabled' : 'enabled'}`)}
                    >
                      {tier.active ? 'Disable' : 'Enable'}
                    </Button>
                  )}
                  {mayRemove && (
                    <Button size="compact-xs" variant="subtle" color="red" aria-label={`Remove ${tier.name}`} onClick={() => remove(tier)}>
                      Remove
                    </Button>
                  )}
                </Group>
              </Table.Td>
            )}
          </Table.Tr>
        ))}
      </DataTable>
      {tiers.length === 0 && (
        <Text size="sm" c="dimmed">
          No tiers: the promotion gives nothing until one is added.
        </Text>
      )}
      <TierModal campaign={campaign} tier={editing} onClose={() => setEditing(null)} onSaved={refresh} />
    </Card>
  );
}

function TierModal({ campaign, tier, onClose, onSaved }: { campaign: Campaign; tier: PromotionTier | 'new' | null; onClose: () => void; onSaved: () => Promise<unknown> }) {
  const phone = useMediaQuery('(max-width: 48em)');
  return (
    <Modal opened={tier !== null} onClose={onClose} title={tier === 'new' ? 'New tier' : `Edit ${tier?.name ?? ''}`} size="xl" fullScreen={phone ?? false}>
      {tier !== null && <TierForm key={tier === 'new' ? 'new' : tier.id} campaign={campaign} tier={tier === 'new' ? null : tier} onDone={onClose} onSaved={onSaved} />}
    </Modal>
  );
}

const TIER_FIELDS = { name: 'name', banner: 'banner', discount: 'action', start: 'start_date', end: 'expiration_date', rule: 'validation_rules' };

function TierForm({ campaign, tier, onDone, onSaved }: { campaign: Campaign; tier: PromotionTier | null; onDone: () => void; onSaved: () => Promise<unknown> }) {
  const can = useCan();
  const [name, setName] = useState(tier?.name ?? `Tier ${(campaign.promotion?.total ?? 0) + 1}`);
  const [banner, setBanner] = useState(tier?.banner ?? '');
  // A discount the form does not offer (UNIT, FIXED…) is left as it is.
  const [discount, setDiscount] = useState<DiscountValue | null>(tier ? discountValueOf(tier.action?.discount) : { kind: 'PERCENT', value: 10 });
  const [validity, setValidity] = useState<Validity>({ start: localInputOf(tier?.start_date), end: localInputOf(tier?.expiration_date) });
  const [rule, setRule] = useState<RuleChoice>(choiceOf((tier?.validation_rule_assignments?.data ?? []).map((a) => a.rule_id)));
  const [ruleError, setRuleError] = useState<string | null>(null);
  const [submitted, setSubmitted] = useState(false);
  const form = useFormSubmit(TIER_FIELDS);

  const save = form.submit(async () => {
    setRuleError(null);
    setSubmitted(true);
    if (!choiceComplete(rule)) {
      setRuleError('Complete the conditions first');
      return;
    }
    const chosen = await ruleIdOf(rule, `${campaign.name} · ${name} rule`);
    if (!chosen.ok) {
      setRuleError(chosen.message);
      return;
    }
    const body = {
      name,
      banner: banner.trim() === '' ? null : banner,
      ...(discount && !tier ? { action: { discount: discountOf(discount) } } : {}),
      ...(discount && tier && discountUpdateOf(tier.action?.discount, discount) ? { action: { discount: discountUpdateOf(tier.action?.discount, discount) } } : {}),
      ...(tier ? validityUpdateOf(validity) : validityOf(validity)),
      validation_rules: chosen.id ? [chosen.id] : [],
    };
    if (tier) await api('PUT', `/v1/promotions/tiers/${tier.id}`, body);
    else await api('POST', `/v1/promotions/${campaign.id}/tiers`, body);
    await onSaved();
    notifyDone(tier ? `${name} saved` : `${name} added`);
    onDone();
  });

  return (
    <form onSubmit={(e) => void save(e)}>
      <Stack>
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <TextInput label="Tier name" required value={name} onChange={(e) => setName(e.currentTarget.value)} error={form.errorFor('name')} />
          <TextInput label="Banner (shown to customers)" value={banner} onChange={(e) => setBanner(e.currentTarget.value)} error={form.errorFor('banner')} />
        </SimpleGrid>
        {discount ? (
          <DiscountFields
            label="Tier"
            value={discount}
            onChange={(value) => {
              // A refusal of the old figure (or type) no longer describes what the inputs show.
              if (form.errorFor('discount')) form.setError(null);
              setDiscount(value);
            }}
            error={form.errorFor('discount')}
          />
        ) : (
          <Text size="sm">This tier's {tier?.action?.discount?.type ?? ''} discount is changed through the API; the console edits percent and amount discounts.</Text>
        )}
        <ValidityInputs value={validity} onChange={setValidity} errors={{ start: form.errorFor('start'), end: form.errorFor('end') }} />
        <RulePicker value={rule} onChange={setRule} error={ruleError ?? form.errorFor('rule') ?? null} showProblems={submitted} allowNew={can('POST', '/v1/validation-rules')} />
        {form.formError !== null && <ErrorAlert error={form.formError} title={tier ? 'The tier was not saved' : 'The tier was not added'} />}
        <Group>
          <Button type="submit" loading={form.busy}>
            {tier ? 'Save tier' : 'Add tier'}
          </Button>
          <Button variant="default" onClick={onDone}>
            Cancel
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
