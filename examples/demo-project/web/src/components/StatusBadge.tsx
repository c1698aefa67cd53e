type Status = 'draft' | 'sent' | 'paid' | 'overdue';

const COLORS: Record<Status, string> = {
  draft: 'var(--color-muted)',
  sent: 'var(--color-brand)',
  paid: 'var(--color-paid)',
  overdue: 'var(--color-danger)',
};

export function StatusBadge({ status }: { status: Status }) {
  return (
    <span style={{ color: COLORS[status], padding: 'var(--space-2)', borderRadius: 'var(--radius-md)' }}>
      {status}
    </span>
  );
}
