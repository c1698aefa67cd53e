import { StatusBadge } from '../../../src/components/StatusBadge';
import { useInvoice } from '../../../src/api/hooks/useInvoice';

export default function InvoiceDetailPage({ params }: { params: { id: string } }) {
  const { data: invoice } = useInvoice(params.id);
  if (!invoice) return null;
  return (
    <section>
      <h1>{invoice.number}</h1>
      <StatusBadge status={invoice.status} />
    </section>
  );
}
