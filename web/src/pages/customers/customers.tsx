// The customers screens (registered in web/src/app/screens.tsx): the list with its search, and one customer.
export { CustomersPage } from './list.tsx';
export { CustomerPage } from './page.tsx';
