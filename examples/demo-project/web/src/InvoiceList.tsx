import { useTranslation } from 'react-i18next';

import { useInvoices } from './api/hooks/useInvoices';
import { formatMoney } from './lib/money';

type InvoiceListProps = {
  tenantId: string;
};

export function InvoiceList({ tenantId }: InvoiceListProps) {
  const { t } = useTranslation();
  const { data, isLoading, error } = useInvoices(tenantId);

  if (isLoading) return <p>{t('invoices.loading')}</p>;
  if (error) return <p role="alert">{t('invoices.loadFailed')}</p>;
  if (!data?.length) return <p>{t('invoices.empty')}</p>;

  return (
    <table>
      <thead>
        <tr>
          <th>{t('invoices.number')}</th>
          <th>{t('invoices.status')}</th>
          <th>{t('invoices.amount')}</th>
        </tr>
      </thead>
      <tbody>
        {data.map((invoice) => (
          <tr key={invoice.id}>
            <td>{invoice.number}</td>
            <td>{invoice.status}</td>
            <td>{formatMoney(invoice.amount, invoice.currency)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
