import Link from 'next/link';

export function AppShell({ children }: { children: React.ReactNode }) {
  return (
    <div style={{ padding: 'var(--space-4)' }}>
      <nav>
        <Link href="/invoices">Invoices</Link>
        <Link href="/settings">Settings</Link>
      </nav>
      <main>{children}</main>
    </div>
  );
}
