import type { StatusResult } from '../api-types';
import { ExtraFields } from './extra-fields';
import { ScrollTable } from './scroll-table';
import { StatusBadge } from './status-badge';

/** What a permission finding rests on, in words. */
const EVIDENCE: Record<string, string> = {
  probe: 'a probe read just made (proof)',
  token: "the token's roles claim (a hint)",
};

/**
 * "Check status" and, for Graph, the permission report: every finding with its outcome and
 * the detail the service saw it in.
 */
export function StatusFindings({ result }: { result: StatusResult }) {
  return (
    <section aria-label="Status check result" class="status-findings">
      <p>
        <StatusBadge status={result.ok ? 'ok' : 'failed'} />{' '}
        {result.error === undefined ? null : (
          <>
            <code>{result.error.code}</code>{' '}
          </>
        )}
        {result.summary}
      </p>
      {result.findings.length === 0 ? null : (
        <ScrollTable label="Findings" caption="Findings">
          <thead>
            <tr>
              <th scope="col">Check</th>
              <th scope="col">Outcome</th>
              <th scope="col">Evidence</th>
              <th scope="col">Detail</th>
            </tr>
          </thead>
          <tbody>
            {result.findings.map((finding, index) => (
              <tr key={index}>
                <th scope="row">{finding.name}</th>
                <td>
                  <StatusBadge status={finding.outcome} />
                </td>
                <td>{EVIDENCE[finding.evidence ?? ''] ?? finding.evidence ?? ''}</td>
                <td>
                  {finding.detail}
                  <ExtraFields value={finding} known={['name', 'outcome', 'evidence', 'detail']} />
                </td>
              </tr>
            ))}
          </tbody>
        </ScrollTable>
      )}
      <ExtraFields
        value={result}
        known={[
          'connector',
          'kind',
          'ok',
          'summary',
          'findings',
          'lastCompatibilityRun',
          'error',
          'credential',
        ]}
      />
    </section>
  );
}
