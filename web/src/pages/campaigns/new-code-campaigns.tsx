import { Group, NumberInput, SegmentedControl, Select, Stack, Text, TextInput } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api, listOf, withQuery } from '../../api/client.ts';
import { CodeCampaignForm } from './code-campaign-form.tsx';
import { DiscountFields, discountOf, type DiscountValue } from './form-parts.tsx';
import type { Campaign } from './list.tsx';

// Gift card, loyalty program and referral program campaigns: the members each type adds to the common
// code-campaign form.

export function NewGiftCampaignPage() {
  const [amount, setAmount] = useState<number | string>(50);
  return (
    <CodeCampaignForm
      title="New gift card campaign"
      description="Cards holding credits that pay for (part of) an order."
      submitLabel="Create gift card campaign"
      fields={{ amount: 'voucher.gift' }}
      body={() => ({ campaign_type: 'GIFT_VOUCHERS', voucher: { type: 'GIFT_VOUCHER', gift: { amount: Math.round(Number(amount) * 100) } } })}
    >
      {(errorFor) => <NumberInput label="Credits on each card" description="In your currency's major units, e.g. 50.00" value={amount} onChange={setAmount} min={0} decimalScale={2} error={errorFor('amount')} w={240} />}
    </CodeCampaignForm>
  );
}

export function NewLoyaltyCampaignPage() {
  const [points, setPoints] = useState<number | string>(0);
  const [months, setMonths] = useState<number | string>('');
  return (
    <CodeCampaignForm
      title="New loyalty program"
      description="Loyalty cards that earn points by your earning rules and spend them on rewards. Add earning rules, rewards and tiers on the program's loyalty page."
      submitLabel="Create loyalty program"
      withRule={false}
      defaultCount={0}
      fields={{ points: 'voucher.loyalty_card.points', expiry: 'voucher.loyalty_card.expiration_rules' }}
      next={(campaign) => `/loyalty/${campaign.id}`}
      body={() => ({
        campaign_type: 'LOYALTY_PROGRAM',
        voucher: {
          type: 'LOYALTY_CARD',
          loyalty_card: { points: Number(points), ...(months !== '' ? { expiration_rules: { period_type: 'MONTH', period_value: Number(months) } } : {}) },
        },
      })}
    >
      {(errorFor) => (
        <Group grow align="flex-start" wrap="wrap">
          <NumberInput label="Points each new card starts with" value={points} onChange={setPoints} min={0} error={errorFor('points')} miw={200} />
          <NumberInput label="Points expire after (months)" description="Empty: points never expire" value={months} onChange={setMonths} min={1} max={1200} error={errorFor('expiry')} miw={200} />
        </Group>
      )}
    </CodeCampaignForm>
  );
}

type RewardKind = 'NONE' | 'GIFT_VOUCHER' | 'LOYALTY_CARD';

function useCampaignsOfType(type: string) {
  return useQuery({
    queryKey: ['campaigns', 'of-type', type],
    queryFn: async () => listOf<Campaign>(await api('GET', withQuery('/v1/campaigns', { campaign_type: type, limit: 100, order: '-created_at' }))).items,
  });
}

export function NewReferralCampaignPage() {
  const [discount, setDiscount] = useState<DiscountValue>({ kind: 'PERCENT', value: 10 });
  const [conversion, setConversion] = useState<'redemption' | 'custom_event'>('redemption');
  const [eventName, setEventName] = useState('');
  const [reward, setReward] = useState<{ kind: RewardKind; campaign: string | null; amount: number | string }>({ kind: 'NONE', campaign: null, amount: 100 });
  const gifts = useCampaignsOfType('GIFT_VOUCHERS');
  const programs = useCampaignsOfType('LOYALTY_PROGRAM');
  const rewardCampaigns = (reward.kind === 'GIFT_VOUCHER' ? gifts.data : programs.data) ?? [];

  const program = () => ({
    conversion_event_type: conversion,
    ...(conversion === 'custom_event' ? { custom_event: { name: eventName } } : {}),
    ...(reward.kind !== 'NONE'
      ? {
          referee_reward: {
            related_object_parent: { id: reward.campaign ?? '', object: 'CAMPAIGN' },
            type: reward.kind,
            amount: reward.kind === 'GIFT_VOUCHER' ? Math.round(Number(reward.amount) * 100) : Number(reward.amount),
          },
        }
      : {}),
  });

  return (
    <CodeCampaignForm
      title="New referral program"
      description="Referral codes a customer shares: the friend who uses one gets the discount (and, optionally, credits or points); referrer rewards are the program's tiers."
      submitLabel="Create referral program"
      fields={{ discount: 'voucher.discount', conversion: 'referral_program.conversion_event_type', event: 'referral_program.custom_event', reward: 'referral_program.referee_reward' }}
      body={() => ({ campaign_type: 'REFERRAL_PROGRAM', voucher: { type: 'DISCOUNT_VOUCHER', discount: discountOf(discount), is_referral_code: true }, referral_program: program() })}
    >
      {(errorFor) => (
        <Stack>
          <DiscountFields value={discount} onChange={setDiscount} error={errorFor('discount')} />
          <Group align="flex-end" wrap="wrap">
            <Stack gap={4}>
              <Text size="sm" fw={500}>
                A referral converts on
              </Text>
              <SegmentedControl
                aria-label="Conversion event"
                value={conversion}
                onChange={(value) => setConversion(value as typeof conversion)}
                data={[
                  { value: 'redemption', label: 'Redemption of the code' },
                  { value: 'custom_event', label: 'A custom event' },
                ]}
              />
            </Stack>
            {conversion === 'custom_event' && <TextInput label="Custom event name" value={eventName} onChange={(e) => setEventName(e.currentTarget.value)} error={errorFor('event')} w={220} />}
          </Group>
          <Group align="flex-start" wrap="wrap">
            <Select
              label="Extra reward for the referred friend"
              value={reward.kind}
              allowDeselect={false}
              onChange={(kind) => setReward({ ...reward, kind: (kind ?? 'NONE') as RewardKind, campaign: null })}
              data={[
                { value: 'NONE', label: 'None (the discount only)' },
                { value: 'GIFT_VOUCHER', label: 'Gift card credits' },
                { value: 'LOYALTY_CARD', label: 'Loyalty points' },
              ]}
              w={240}
              error={errorFor('reward')}
            />
            {reward.kind !== 'NONE' && (
              <>
                <Select
                  label={reward.kind === 'GIFT_VOUCHER' ? 'Gift card campaign' : 'Loyalty program'}
                  placeholder={rewardCampaigns.length === 0 ? 'None exists yet' : 'Choose'}
                  value={reward.campaign}
                  onChange={(campaign) => setReward({ ...reward, campaign })}
                  data={rewardCampaigns.map((c) => ({ value: c.id, label: c.name }))}
                  w={240}
                />
                <NumberInput
                  label={reward.kind === 'GIFT_VOUCHER' ? 'Credits' : 'Points'}
                  value={reward.amount}
                  onChange={(amount) => setReward({ ...reward, amount })}
                  min={0}
                  decimalScale={reward.kind === 'GIFT_VOUCHER' ? 2 : 0}
                  w={140}
                />
              </>
            )}
          </Group>
        </Stack>
      )}
    </CodeCampaignForm>
  );
}
