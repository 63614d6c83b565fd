import { Alert, Badge, Button, Card, CopyButton, Divider, Group, Image, Progress, Stack, Text, Title, UnstyledButton } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useContext, useRef, useState } from 'react';
import { CockpitError, cockpitApi, intentKey, type Brand, type Discount, type HistoryPage, type LoyaltyCard, type Reward, type Transaction, type Wallet } from './api.ts';
import { CouponTerms } from './CouponTerms.tsx';
import { LinkError, Loading, SamplePreview, Shell } from './Shell.tsx';

// The wallet: loyalty cards (balance, pending points, next expiry, tier and progress, rewards to redeem,
// history), coupons, gift cards and referral codes, each code with its QR code and barcode.

const points = (n: number) => `${n.toLocaleString()} ${Math.abs(n) === 1 ? 'point' : 'points'}`;
const day = (iso: string | null) => (iso ? new Date(iso.length === 10 ? `${iso}T12:00:00Z` : iso).toLocaleDateString(undefined, { dateStyle: 'medium' }) : null);
const money = (minor: number, currency: string) => {
  try {
    return currency ? (minor / 100).toLocaleString(undefined, { style: 'currency', currency }) : (minor / 100).toFixed(2);
  } catch {
    return `${(minor / 100).toFixed(2)} ${currency}`;
  }
};

function discountText(d: Discount | null, currency: string): string {
  if (!d) return '';
  if (d.type === 'PERCENT') return `${d.percent_off ?? 0}% off`;
  if (d.type === 'AMOUNT') return `${money(d.amount_off ?? 0, currency)} off`;
  if (d.type === 'UNIT') return `${d.unit_off ?? 1} × ${d.unit_type ?? 'item'} free`;
  if (d.type === 'FIXED') return `Pay ${money(d.fixed_amount ?? 0, currency)}`;
  return '';
}

const TRANSACTION_NAMES: Record<string, string> = {
  POINTS_ADDITION: 'Points added',
  POINTS_REMOVAL: 'Points removed',
  POINTS_ACCRUAL: 'Points earned',
  POINTS_REDEMPTION: 'Reward redeemed',
  POINTS_REFUND: 'Points refunded',
  POINTS_EXPIRATION: 'Points expired',
  POINTS_TRANSFER_IN: 'Points received',
  POINTS_TRANSFER_OUT: 'Points transferred',
  POINTS_CANCELLATION: 'Points cancelled',
  PENDING_POINTS_ACTIVATION: 'Pending points added',
  OPENING_BALANCE: 'Starting points',
};

function validity(from: string | null, until: string | null): string | null {
  if (from && until) return `Valid ${day(from)} – ${day(until)}`;
  if (until) return `Valid until ${day(until)}`;
  if (from) return `Valid from ${day(from)}`;
  return null;
}

/** The code written out, with its QR code and barcode on demand (the images the console shows too). */
function CodeBlock({ code, qr, barcode }: { code: string; qr: string | null; barcode: string | null }) {
  const [open, setOpen] = useState(false);
  return (
    <Stack gap="xs">
      <Group justify="space-between" wrap="nowrap">
        <Text ff="monospace" fw={700} size="lg" style={{ wordBreak: 'break-all' }}>
          {code}
        </Text>
        <CopyButton value={code}>
          {({ copied, copy }) => (
            <Button size="compact-sm" variant="light" color="gray" onClick={copy}>
              {copied ? 'Copied' : 'Copy'}
            </Button>
          )}
        </CopyButton>
      </Group>
      {(qr || barcode) && (
        <UnstyledButton onClick={() => setOpen((o) => !o)} aria-expanded={open}>
          <Text size="sm" c="blue">
            {open ? 'Hide codes' : 'Show QR code and barcode'}
          </Text>
        </UnstyledButton>
      )}
      {open && (
        <Stack align="center" gap="sm" bg="white" p="sm">
          {qr && <Image src={`${qr}?size=6`} alt={`QR code of ${code}`} w={180} h={180} fit="contain" />}
          {barcode && <Image src={`${barcode}?size=2`} alt={`Barcode of ${code}`} maw="100%" h={90} fit="contain" />}
        </Stack>
      )}
    </Stack>
  );
}

/** One reward: Redeem asks to confirm; Confirm redeems once however often it is tapped (one key per intent). */
function RewardRow({ card, reward, brand }: { card: LoyaltyCard; reward: Reward; brand: Brand }) {
  const preview = useContext(SamplePreview);
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const intent = useRef<string | null>(null);
  const redeem = useMutation({
    mutationFn: (key: string) =>
      cockpitApi<{ id: string; result: string }>('POST', `/cards/${encodeURIComponent(card.code)}/redemption`, { reward_id: reward.id }, key),
    onSuccess: async () => {
      intent.current = null;
      setConfirming(false);
      await queryClient.invalidateQueries({ queryKey: ['wallet'] });
    },
    onError: (error) => {
      // A refusal (4xx) redeemed nothing: the next tap is a new intent. Without an answer (the network),
      // or while the first request still runs (409), it may have happened: the next tap asks again with
      // the same key and gets its answer.
      if (error instanceof CockpitError && error.status >= 400 && error.status < 500 && error.status !== 409) intent.current = null;
    },
  });
  const confirm = () => {
    // A sample reward belongs to no card: the preview shows the buttons but redeems nothing.
    if (preview) {
      setConfirming(false);
      return;
    }
    // Every tap of this Confirm is the same intent: a repeat is answered with the first one's result.
    intent.current ??= intentKey();
    if (!redeem.isPending) redeem.mutate(intent.current);
  };
  return (
    <Stack gap={6} data-reward={reward.name}>
      <Group justify="space-between" wrap="nowrap" align="flex-start">
        <div>
          <Text fw={600}>{reward.name}</Text>
          <Text size="sm" c="dimmed">
            {reward.points === null ? 'Pay with points' : points(reward.points)}
            {reward.stock_left !== null && ` · ${reward.stock_left} left`}
          </Text>
        </div>
        {!reward.redeemable && (
          <Text size="sm" c="dimmed" ta="right">
            Use at checkout
          </Text>
        )}
        {reward.redeemable && !confirming && (
          <Button
            size="sm"
            color={brand.primary_color}
            disabled={!reward.affordable || reward.stock_left === 0}
            onClick={() => {
              redeem.reset();
              setConfirming(true);
            }}
          >
            {reward.affordable ? 'Redeem' : `${points(Math.max(0, (reward.points ?? 0) - card.balance))} to go`}
          </Button>
        )}
      </Group>
      {confirming && (
        <Group gap="xs" justify="flex-end">
          <Text size="sm">Spend {reward.points === null ? 'points' : points(reward.points)}?</Text>
          <Button size="sm" variant="default" onClick={() => setConfirming(false)} disabled={redeem.isPending}>
            Cancel
          </Button>
          <Button size="sm" color={brand.primary_color} onClick={confirm} loading={redeem.isPending}>
            Confirm
          </Button>
        </Group>
      )}
      {redeem.isError && (
        <Alert color="red" variant="light" p="xs">
          {redeem.error.message}
        </Alert>
      )}
      {redeem.isSuccess && (
        <Alert color="green" variant="light" p="xs" role="status">
          Redeemed: {reward.name}
        </Alert>
      )}
    </Stack>
  );
}

/**
 * The card's history, newest first, each change with the balance it left. A page that does not reach the
 * card's start says what the balance was before its oldest entry, so what is shown always adds up.
 */
function History({ card }: { card: LoyaltyCard }) {
  const [pages, setPages] = useState<HistoryPage[]>([]);
  const last = pages.at(-1) ?? card.history;
  const more = useMutation({
    mutationFn: (from: string) => cockpitApi<HistoryPage>('GET', `/cards/${encodeURIComponent(card.code)}/transactions?starting_after_id=${encodeURIComponent(from)}`),
    onSuccess: (page) => setPages((p) => [...p, page]),
  });
  const rows: Transaction[] = [...card.history.data, ...pages.flatMap((p) => p.data)];
  if (rows.length === 0) return <Text c="dimmed">No points activity yet.</Text>;
  return (
    <Stack gap={8} data-testid="history">
      {rows.map((t) => (
        <Group key={t.id} justify="space-between" wrap="nowrap" align="flex-start" data-entry={t.type}>
          <div style={{ minWidth: 0 }}>
            <Text size="sm">{t.reason || TRANSACTION_NAMES[t.type] || t.type}</Text>
            <Text size="xs" c="dimmed">
              {new Date(t.created_at).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })}
            </Text>
          </div>
          <div style={{ textAlign: 'right', flexShrink: 0 }}>
            <Text size="sm" fw={600} c={t.points < 0 ? 'red.7' : 'green.7'}>
              {t.points > 0 ? '+' : ''}
              {t.points.toLocaleString()}
            </Text>
            <Text size="xs" c="dimmed">
              Balance {t.balance_after.toLocaleString()}
            </Text>
          </div>
        </Group>
      ))}
      {last.has_more && (
        <>
          <Text size="xs" c="dimmed" data-testid="balance-before">
            Balance before these: {points(last.balance_before)}
          </Text>
          <Button variant="subtle" size="xs" onClick={() => last.more_starting_after && more.mutate(last.more_starting_after)} loading={more.isPending}>
            Show older
          </Button>
        </>
      )}
    </Stack>
  );
}

function LoyaltyCardView({ card, brand }: { card: LoyaltyCard; brand: Brand }) {
  const [showHistory, setShowHistory] = useState(false);
  const progress = card.next_tier ? Math.min(100, Math.max(0, (card.tier_points / card.next_tier.from) * 100)) : 100;
  return (
    <Card withBorder shadow="xs" padding="lg" data-card={card.code}>
      <Stack gap="md">
        <Group justify="space-between" wrap="nowrap" align="flex-start">
          <div>
            <Text size="sm" c="dimmed">
              {card.campaign ?? 'Loyalty card'}
            </Text>
            <Text fz={40} fw={800} lh={1.1} style={{ color: brand.accent_color }} aria-label="Balance" data-testid="balance">
              {card.balance.toLocaleString()}
            </Text>
            <Text size="sm">points</Text>
          </div>
          {card.tier && (
            <Badge size="lg" variant="filled" color={brand.primary_color}>
              {card.tier.name}
            </Badge>
          )}
        </Group>
        {card.next_tier && (
          <Stack gap={4}>
            <Progress value={progress} color={brand.accent_color} aria-label={`Progress to ${card.next_tier.name}`} />
            <Text size="sm" c="dimmed">
              {points(card.next_tier.points_needed)} more to reach {card.next_tier.name}
            </Text>
          </Stack>
        )}
        <Group gap="lg">
          <div>
            <Text size="xs" c="dimmed">
              Pending
            </Text>
            <Text fw={600}>{points(card.pending_points)}</Text>
          </div>
          <div>
            <Text size="xs" c="dimmed">
              Next expiry
            </Text>
            <Text fw={600}>{card.next_expiration ? `${points(card.next_expiration.points)} on ${day(card.next_expiration.date)}` : 'None'}</Text>
          </div>
        </Group>
        <CodeBlock code={card.code} qr={card.qr_url} barcode={card.barcode_url} />
        {card.rewards.length > 0 && (
          <>
            <Divider label="Rewards" labelPosition="left" />
            <Stack gap="md">
              {[...card.rewards]
                .sort((a, b) => Number(b.affordable) - Number(a.affordable) || (a.points ?? 0) - (b.points ?? 0))
                .map((reward) => (
                  <RewardRow key={reward.id} card={card} reward={reward} brand={brand} />
                ))}
            </Stack>
          </>
        )}
        <Divider />
        <UnstyledButton onClick={() => setShowHistory((s) => !s)} aria-expanded={showHistory}>
          <Text size="sm" c="blue">
            {showHistory ? 'Hide history' : 'Points history'}
          </Text>
        </UnstyledButton>
        {showHistory && <History card={card} />}
      </Stack>
    </Card>
  );
}

function Section({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <Stack gap="sm" component="section" aria-label={title}>
      <Title order={2} size="h4">
        {title}
      </Title>
      {children}
    </Stack>
  );
}

export function WalletPage() {
  const wallet = useQuery({ queryKey: ['wallet'], queryFn: () => cockpitApi<Wallet>('GET', '/wallet') });
  if (wallet.isPending) return <Loading />;
  if (wallet.isError) return <LinkError error={wallet.error} />;
  return <WalletView wallet={wallet.data} />;
}

/** The wallet drawn from its data: the customer's own, or the console's sample in a preview. */
export function WalletView({ wallet }: { wallet: Wallet }) {
  const { brand, customer, loyalty_cards: cards, vouchers, gift_cards: giftCards, referrals } = wallet;
  const firstName = customer.name?.split(/\s+/)[0];
  return (
    <Shell brand={brand} page="wallet">
      <Stack gap="xl">
        <Title order={2} size="h3">
          {firstName ? `Hi ${firstName}` : 'Your wallet'}
        </Title>
        {cards.length === 0 && vouchers.length === 0 && giftCards.length === 0 && referrals.codes.length === 0 && (
          <Text c="dimmed">Nothing here yet. Cards, coupons and gift cards {brand.name} gives you will show up here.</Text>
        )}
        {cards.length > 0 && (
          <Section title="Loyalty">
            {cards.map((card) => (
              <LoyaltyCardView key={card.code} card={card} brand={brand} />
            ))}
          </Section>
        )}
        {vouchers.length > 0 && (
          <Section title="Coupons">
            {vouchers.map((v) => (
              <Card key={v.code} withBorder padding="md" data-coupon={v.code}>
                <Stack gap="xs">
                  <Group justify="space-between" wrap="nowrap">
                    <Text fw={700} size="lg" style={{ color: brand.accent_color }}>
                      {discountText(v.discount, brand.currency) || v.campaign}
                    </Text>
                    {v.status !== 'ACTIVE' && <Badge color="gray">{v.status.toLowerCase().replace(/_/g, ' ')}</Badge>}
                  </Group>
                  {v.campaign && (
                    <Text size="sm" c="dimmed">
                      {v.campaign}
                    </Text>
                  )}
                  {validity(v.start_date, v.expiration_date) && <Text size="sm">{validity(v.start_date, v.expiration_date)}</Text>}
                  <CouponTerms terms={v} shop={brand.name} />
                  <CodeBlock code={v.code} qr={v.qr_url} barcode={v.barcode_url} />
                </Stack>
              </Card>
            ))}
          </Section>
        )}
        {giftCards.length > 0 && (
          <Section title="Gift cards">
            {giftCards.map((g) => (
              <Card key={g.code} withBorder padding="md">
                <Stack gap="xs">
                  <Text size="sm" c="dimmed">
                    Balance
                  </Text>
                  <Text fw={800} fz={28} style={{ color: brand.accent_color }} data-testid="gift-balance">
                    {money(g.balance, brand.currency)}
                  </Text>
                  {g.amount !== g.balance && (
                    <Text size="sm" c="dimmed">
                      of {money(g.amount, brand.currency)}
                    </Text>
                  )}
                  {validity(g.start_date, g.expiration_date) && <Text size="sm">{validity(g.start_date, g.expiration_date)}</Text>}
                  <CodeBlock code={g.code} qr={g.qr_url} barcode={g.barcode_url} />
                </Stack>
              </Card>
            ))}
          </Section>
        )}
        {referrals.codes.length > 0 && (
          <Section title="Invite friends">
            <Card withBorder padding="md">
              <Stack gap="sm">
                <Text>
                  {referrals.friends_joined === 0
                    ? 'Share your code: friends who use it join you here.'
                    : `${referrals.friends_joined} ${referrals.friends_joined === 1 ? 'friend has' : 'friends have'} joined with your code.`}
                </Text>
                {referrals.codes.map((r) => (
                  <Stack key={r.code} gap={6}>
                    <Text ff="monospace" fw={700} size="lg">
                      {r.code}
                    </Text>
                    <Group gap="xs">
                      <CopyButton value={r.share_url ?? r.code}>
                        {({ copied, copy }) => (
                          <Button size="sm" variant="light" color={brand.primary_color} onClick={copy}>
                            {copied ? 'Copied' : r.share_url ? 'Copy share link' : 'Copy code'}
                          </Button>
                        )}
                      </CopyButton>
                      {typeof navigator.share === 'function' && (
                        <Button
                          size="sm"
                          color={brand.primary_color}
                          onClick={() =>
                            navigator
                              .share({ title: brand.name, text: `Use my code ${r.code} at ${brand.name}`, ...(r.share_url ? { url: r.share_url } : {}) })
                              .catch(() => undefined)
                          }
                        >
                          Share
                        </Button>
                      )}
                    </Group>
                  </Stack>
                ))}
              </Stack>
            </Card>
          </Section>
        )}
      </Stack>
    </Shell>
  );
}
