import { Alert, Text } from '@mantine/core';
import type { components } from '../../api/schema';
import { Link } from '../../ui/Link';
import { actionLabel, STATUS_LABELS } from '../approvals/labels';

type Approval = components['schemas']['ApprovalRequestView'];

/**
 * What the maker-checker engine answered a submission: pending (another person must approve it, the
 * link opens the request), or already carried out or failed when configuration lets one person act.
 */
export function SubmittedRequest({ request }: { request: Approval | undefined }) {
  if (!request) return null;
  const pending = request.status === 'PENDING';
  const failed = request.status === 'FAILED';
  return (
    <Alert
      color={failed ? 'red' : pending ? 'yellow' : 'green'}
      title={pending ? 'Sent for approval' : `${actionLabel(request.action)}: ${STATUS_LABELS[request.status]}`}
      data-testid="submitted-request"
      role="status"
    >
      <Text size="sm">
        {actionLabel(request.action)} — {request.summary}. {pending ? 'Another person must approve it before it happens. ' : ''}
        {request.failure ? `${request.failure.code}: ${request.failure.message}. ` : ''}
        <Link to={`/approvals/${request.id}`} testId="submitted-request-link">
          Open request {request.id}
        </Link>
      </Text>
    </Alert>
  );
}
