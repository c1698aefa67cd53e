import { InvoiceList } from '../../src/InvoiceList';
import { useTenant } from '../../src/lib/tenant';

export default function InvoicesPage() {
  const tenant = useTenant();
  return <InvoiceList tenantId={tenant.id} />;
}
