import { Button, Modal, NumberInput, Stack, Text, TextInput } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { api } from '../../api/client.ts';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { confirmThen, useFormSubmit } from '../../components/forms.tsx';
import { notifyDone } from '../../components/notify.ts';
import type { Campaign, PromotionTier } from './list.tsx';

// The campaign page's header actions besides enable/disable: duplicate (a new campaign with the same
// settings, under a name typed first) and delete (after a confirmation naming what goes).

/** Only the members a create takes; the API's own output members (ids, counts, dates of change) are left. */
function pick<T extends object>(source: T | null | undefined, keys: Array<keyof T>): Partial<T> {
  const out: Partial<T> = {};
  for (const key of keys) if (source?.[key] !== undefined && source[key] !== null) out[key] = source[key];
  return out;
}

const VALIDITY_KEYS = ['start_date', 'expiration_date', 'validity_timeframe', 'validity_day_of_week', 'validity_hours'] as const;

function tierCopy(tier: PromotionTier): Record<string, unknown> {
  const rules = (tier.validation_rule_assignments?.data ?? []).map((a) => a.rule_id);
  return {
    name: tier.name,
    ...(tier.banner ? { banner: tier.banner } : {}),
    ...(tier.action?.discount ? { action: { discount: tier.action.discount } } : {}),
    hierarchy: tier.hierarchy,
    active: tier.active,
    ...pick(tier, ['metadata', ...VALIDITY_KEYS]),
    ...(rules.length > 0 ? { validation_rules: rules } : {}),
  };
}

/** The create body of a campaign like `c`: its settings, rule and (for promotions) tiers; codes are new ones. */
export function copyOf(c: Campaign, name: string, count: number): Record<string, unknown> {
  const rules = (c.validation_rules_assignments?.data ?? []).map((a) => a.rule_id);
  return {
    name,
    campaign_type: c.campaign_type,
    type: c.type,
    ...pick(c, ['description', 'category', 'metadata', 'join_once', 'auto_join', 'use_voucher_metadata_schema', 'activity_duration_after_publishing', ...VALIDITY_KEYS]),
    ...(c.voucher ? { voucher: pick(c.voucher, ['type', 'discount', 'gift', 'loyalty_card', 'redemption', 'code_config', 'is_referral_code']), vouchers_count: count } : {}),
    ...(c.campaign_type === 'PROMOTION' ? { promotion: { tiers: (c.promotion?.tiers ?? []).map(tierCopy) } } : {}),
    ...(c.referral_program ? { referral_program: c.referral_program } : {}),
    ...(c.loyalty_tiers_expiration ? { loyalty_tiers_expiration: c.loyalty_tiers_expiration } : {}),
    ...(rules[0] ? { validation_rules: [rules[0]] } : {}),
  };
}

export function DuplicateButton({ campaign }: { campaign: Campaign }) {
  const navigate = useNavigate();
  const client = useQueryClient();
  const phone = useMediaQuery('(max-width: 48em)');
  const [opened, setOpened] = useState(false);
  const [name, setName] = useState(`${campaign.name} copy`);
  const [count, setCount] = useState<number | string>(campaign.vouchers_count);
  const form = useFormSubmit({ name: 'name', count: 'vouchers_count' });
  const save = form.submit(async () => {
    const created = await api<Campaign>('POST', '/v1/campaigns', copyOf(campaign, name, Number(count)));
    await client.invalidateQueries({ queryKey: ['campaigns'] });
    notifyDone(`${created.name} created`);
    setOpened(false);
    navigate(`/campaigns/${created.id}`);
  });
  return (
    <>
      <Button variant="default" onClick={() => setOpened(true)}>
        Duplicate
      </Button>
      <Modal opened={opened} onClose={() => setOpened(false)} title={`Duplicate ${campaign.name}`} fullScreen={phone ?? false}>
        <form onSubmit={(e) => void save(e)}>
          <Stack>
            <Text size="sm">
              A new campaign with the same settings
              {campaign.campaign_type === 'PROMOTION' ? ', tiers' : ''}, rule and dates.
              {campaign.campaign_type === 'LOYALTY_PROGRAM' ? ' Earning rules, rewards and loyalty tiers are not copied.' : ''}
              {campaign.voucher ? ' Its codes are new ones; none of the original codes are copied.' : ''}
            </Text>
            <TextInput label="Name of the copy" required data-autofocus value={name} onChange={(e) => setName(e.currentTarget.value)} error={form.errorFor('name')} />
            {campaign.voucher && <NumberInput label="Codes to generate now" value={count} onChange={setCount} min={0} error={form.errorFor('count')} />}
            {form.formError !== null && <ErrorAlert error={form.formError} title="The copy was not created" />}
            <Button type="submit" loading={form.busy}>
              Create copy
            </Button>
          </Stack>
        </form>
      </Modal>
    </>
  );
}

export function DeleteButton({ campaign }: { campaign: Campaign }) {
  const navigate = useNavigate();
  const client = useQueryClient();
  const codes = campaign.campaign_type === 'PROMOTION' ? `its ${campaign.promotion?.total ?? 0} tier(s)` : `its ${campaign.vouchers_count} code(s)`;
  const ask = () =>
    confirmThen({
      title: `Delete ${campaign.name}?`,
      body: (
        <Stack gap="xs">
          <Text size="sm">
            {campaign.name} and {codes} will be deleted: they stop working at once and leave every list. The campaign goes to the bin (it cannot be brought back from there, only deleted for good).
          </Text>
          <Text size="sm">Redemptions already made stay in the redemption history; customers' past orders are not changed.</Text>
        </Stack>
      ),
      confirm: 'Delete campaign',
      failed: `${campaign.name} was not deleted`,
      done: `${campaign.name} deleted`,
      action: async () => {
        await api('DELETE', `/v1/campaigns/${campaign.id}`);
        await client.invalidateQueries({ predicate: (q) => ['campaigns', 'campaign'].includes(String(q.queryKey[0])) });
        navigate('/campaigns');
      },
    });
  return (
    <Button variant="light" color="red" onClick={ask}>
      Delete
    </Button>
  );
}
