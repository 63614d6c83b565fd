/**
 * Every client-side action flag of a project, turned on (a management API body). A new project, the
 * default one too, allows none until an operator enables them.
 */
export const CLIENT_ACTIONS_ON = {
  client_redeem_enabled: true,
  client_publish_enabled: true,
  client_list_vouchers_enabled: true,
  client_create_customer_enabled: true,
  client_loyalty_events_enabled: true,
  client_set_voucher_expiration_date_enabled: true,
};
