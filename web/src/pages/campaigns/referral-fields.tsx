import { Group, NumberInput, SegmentedControl, Select, Stack, Text, TextInput } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { api, listOf, withQuery } from '../../api/client.ts';
import type { Campaign } from './list.tsx';

// A referral program's own settings, shared by its create and edit forms: what converts a referral, and
// the optional extra reward (gift credits or loyalty points from another campaign) for the referred friend.

type RewardKind = 'NONE' | 'GIFT_VOUCHER' | 'LOYALTY_CARD';

export interface ReferralSettings {
  conversion: 'redemption' | 'custom_event';
  eventName: string;
  reward: { kind: RewardKind; campaign: string | null; amount: number | string };
}

export const NEW_REFERRAL: ReferralSettings = { conversion: 'redemption', eventName: '', reward: { kind: 'NONE', campaign: null, amount: 100 } };

interface StoredProgram {
  conversion_event_type?: string;
  custom_event?: { name?: string };
  referee_reward?: { type: string; amount: number; related_object_parent: { id?: string } };
}

/** The inputs for a stored `referral_program` (amounts in major units for gift credits). */
export function referralValueOf(program: StoredProgram | null | undefined): ReferralSettings {
  const reward = program?.referee_reward;
  return {
    conversion: program?.conversion_event_type === 'custom_event' ? 'custom_event' : 'redemption',
    eventName: program?.custom_event?.name ?? '',
    reward: reward
      ? { kind: reward.type === 'GIFT_VOUCHER' ? 'GIFT_VOUCHER' : 'LOYALTY_CARD', campaign: reward.related_object_parent.id ?? null, amount: reward.type === 'GIFT_VOUCHER' ? reward.amount / 100 : reward.amount }
      : NEW_REFERRAL.reward,
  };
}

/** The API's `referral_program` for the inputs. */
export function referralOf({ conversion, eventName, reward }: ReferralSettings): Record<string, unknown> {
  return {
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
  };
}

function useCampaignsOfType(type: string) {
  return useQuery({
    queryKey: ['campaigns', 'of-type', type],
    queryFn: async () => listOf<Campaign>(await api('GET', withQuery('/v1/campaigns', { campaign_type: type, limit: 100, order: '-created_at' }))).items,
  });
}

export function ReferralFields({ value, onChange, errors = {} }: {
  value: ReferralSettings;
  onChange: (value: ReferralSettings) => void;
  errors?: { conversion?: string | undefined; event?: string | undefined; reward?: string | undefined };
}) {
  const { conversion, eventName, reward } = value;
  const gifts = useCampaignsOfType('GIFT_VOUCHERS');
  const programs = useCampaignsOfType('LOYALTY_PROGRAM');
  const rewardCampaigns = (reward.kind === 'GIFT_VOUCHER' ? gifts.data : programs.data) ?? [];
  const setReward = (next: ReferralSettings['reward']) => onChange({ ...value, reward: next });
  return (
    <>
      <Group align="flex-end" wrap="wrap">
        <Stack gap={4}>
          <Text size="sm" fw={500}>
            A referral converts on
          </Text>
          <SegmentedControl
            aria-label="Conversion event"
            value={conversion}
            onChange={(next) => onChange({ ...value, conversion: next as ReferralSettings['conversion'] })}
            data={[
              { value: 'redemption', label: 'Redemption of the code' },
              { value: 'custom_event', label: 'A custom event' },
            ]}
          />
          {errors.conversion && (
            <Text size="xs" c="red">
              {errors.conversion}
            </Text>
          )}
        </Stack>
        {conversion === 'custom_event' && <TextInput label="Custom event name" value={eventName} onChange={(e) => onChange({ ...value, eventName: e.currentTarget.value })} error={errors.event} w={220} />}
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
          error={errors.reward}
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
    </>
  );
}
