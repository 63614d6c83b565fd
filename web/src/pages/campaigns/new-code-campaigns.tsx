import { Stack } from '@mantine/core';
import { useState } from 'react';
import { CodeCampaignForm } from './code-campaign-form.tsx';
import { DiscountFields, discountOf, GiftAmountInput, LoyaltyCardFields, loyaltyCardOf, type DiscountValue } from './form-parts.tsx';
import { NEW_REFERRAL, ReferralFields, referralOf, type ReferralSettings } from './referral-fields.tsx';

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
      {(errorFor) => <GiftAmountInput value={amount} onChange={setAmount} error={errorFor('amount')} />}
    </CodeCampaignForm>
  );
}

export function NewLoyaltyCampaignPage() {
  const [card, setCard] = useState<{ points: number | string; months: number | string }>({ points: 0, months: '' });
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
        voucher: { type: 'LOYALTY_CARD', loyalty_card: loyaltyCardOf(card.points, card.months) },
      })}
    >
      {(errorFor) => <LoyaltyCardFields points={card.points} months={card.months} onChange={setCard} errors={{ points: errorFor('points'), expiry: errorFor('expiry') }} />}
    </CodeCampaignForm>
  );
}

export function NewReferralCampaignPage() {
  const [discount, setDiscount] = useState<DiscountValue>({ kind: 'PERCENT', value: 10 });
  const [referral, setReferral] = useState<ReferralSettings>(NEW_REFERRAL);
  return (
    <CodeCampaignForm
      title="New referral program"
      description="Referral codes a customer shares: the friend who uses one gets the discount (and, optionally, credits or points); referrer rewards are the program's tiers."
      submitLabel="Create referral program"
      fields={{ discount: 'voucher.discount', conversion: 'referral_program.conversion_event_type', event: 'referral_program.custom_event', reward: 'referral_program.referee_reward' }}
      body={() => ({ campaign_type: 'REFERRAL_PROGRAM', voucher: { type: 'DISCOUNT_VOUCHER', discount: discountOf(discount), is_referral_code: true }, referral_program: referralOf(referral) })}
    >
      {(errorFor) => (
        <Stack>
          <DiscountFields value={discount} onChange={setDiscount} error={errorFor('discount')} />
          <ReferralFields value={referral} onChange={setReferral} errors={{ conversion: errorFor('conversion'), event: errorFor('event'), reward: errorFor('reward') }} />
        </Stack>
      )}
    </CodeCampaignForm>
  );
}
