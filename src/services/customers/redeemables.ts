import type { CustomerRedeemableListOut, CustomerRedeemableOut, CustomerRedeemablesInput } from '../../api/customer-redeemables.ts';
import { errors } from '../../domain/errors.ts';
import { FilterError, parseFilter } from '../../domain/filters/filter.ts';
import { redeemableStatus } from '../../domain/vouchers/redeemable-status.ts';
import { customerRedeemableFilterFields, listCustomerHolders, vouchersOfHolders } from '../../store/customer-redeemables.ts';
import { findLiveCustomer } from '../../store/customers.ts';
import { listing, type Actor, type Deps } from '../context.ts';
import { renderVoucherRows } from '../vouchers/vouchers.ts';
import { readableRows } from '../../lib/unreadable-rows.ts';

// What a customer holds (vendor list-customer-redeemables): every live voucher published to them (OWNER,
// or REFERRER for a referral code) and every referral code they were added to as a REFEREE, with the
// voucher object and whether it can be used now. Also the read a customer preference or wallet page uses.

export async function listCustomerRedeemables(deps: Deps, actor: Actor, customerId: string, query: CustomerRedeemablesInput): Promise<CustomerRedeemableListOut> {
  const customer = await findLiveCustomer(deps.db, actor.projectId, customerId);
  if (!customer) throw errors.notFound('customer', customerId);
  let filter;
  try {
    filter = query.filters ? parseFilter(query.filters, customerRedeemableFilterFields, { path: '.filters', allowRelativeTime: true }) : undefined;
  } catch (error) {
    if (error instanceof FilterError) throw errors.invalidQuery(error.details);
    throw error;
  }
  const now = deps.clock.now();
  const { rows, hasMore, total } = await listCustomerHolders(deps.db, {
    projectId: actor.projectId,
    customerId: customer.id,
    limit: query.limit ?? 10,
    descending: (query.order ?? '-id') === '-id',
    ...(query.starting_after_id !== undefined ? { startingAfterId: query.starting_after_id } : {}),
    ...(filter ? { filter } : {}),
    dialect: deps.dialect,
    now,
  });
  const vouchers = await vouchersOfHolders(deps.db, actor.projectId, rows.map((r) => r.voucher_id));
  const rendered = await readableRows(listing(deps, actor, 'voucher'), [...vouchers.values()], (some) => renderVoucherRows(deps.db, deps, actor.projectId, some));
  const objects = new Map(rendered.map((v) => [v.id, v]));
  const data = rows.flatMap((row): CustomerRedeemableOut[] => {
    const voucher = vouchers.get(row.voucher_id);
    const object = objects.get(row.voucher_id);
    // The page's vouchers were read in a second statement; one deleted in between, or unreadable, is left out.
    if (!voucher || !object) return [];
    const status = redeemableStatus(
      {
        type: voucher.type,
        active: Boolean(voucher.active),
        start_date: voucher.start_date,
        expiration_date: voucher.expiration_date,
        redemption_quantity: voucher.redemption_quantity === null ? null : Number(voucher.redemption_quantity),
        redeemed_quantity: Number(voucher.redeemed_quantity),
        gift_balance: Number(voucher.gift_balance),
      },
      now,
    );
    return [
      {
        id: row.id,
        created_at: row.created_at,
        redeemable_id: row.voucher_id,
        redeemable_object: 'voucher',
        customer_id: row.customer_id,
        holder_role: row.holder_role as CustomerRedeemableOut['holder_role'],
        campaign_id: row.campaign_id,
        campaign_type: row.campaign_type,
        voucher_type: row.voucher_type,
        redeemable: { type: 'voucher', voucher: object, status },
      },
    ];
  });
  const last = rows.at(-1);
  return { object: 'list', data_ref: 'data', data, total, has_more: hasMore, ...(hasMore && last ? { more_starting_after: last.id } : {}) };
}
