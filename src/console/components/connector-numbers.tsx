import type { ConnectorNumbers } from '../prometheus-text';
import { ScrollTable } from './scroll-table';

const CLASSES = ['2xx', '3xx', '4xx', '5xx', 'timeout', 'network_error'];

const count = (value: number) => String(Math.round(value));

/** A connector's numbers since the host started, from GET /metrics. */
export function ConnectorNumbersTable({
  connector,
  numbers,
}: {
  connector: string;
  numbers: ConnectorNumbers;
}) {
  const calls = CLASSES.map((name) => `${name} ${count(numbers.calls[name] ?? 0)}`).join(' · ');
  const failures = Object.entries(numbers.failures)
    .map(([code, n]) => `${code} ${count(n)}`)
    .join(' · ');
  const rows: [string, string][] = [
    [
      'Requests',
      `${count(numbers.requestsSucceeded)} succeeded · ${count(numbers.requestsFailed)} failed`,
    ],
    ['Failed by code', failures === '' ? 'none' : failures],
    ['Outbound calls', calls],
    [
      'Throttling',
      `${count(numbers.throttled)} answers · ${numbers.throttleWaitSeconds.toFixed(1)} s waited`,
    ],
    ['Sign-in failures', count(numbers.tokenFailures)],
    [
      'Verified writes',
      numbers.verifiedWrites === 0
        ? 'none read back'
        : `${count(numbers.verifiedWrites)} · ${(numbers.verificationReads / numbers.verifiedWrites).toFixed(1)} reads each · ${(numbers.visibilitySeconds / numbers.verifiedWrites).toFixed(1)} s to show`,
    ],
  ];
  return (
    <ScrollTable label={`Metrics of ${connector}`} caption="Since the host started">
      <tbody>
        {rows.map(([name, value]) => (
          <tr key={name}>
            <th scope="row">{name}</th>
            <td>{value}</td>
          </tr>
        ))}
      </tbody>
    </ScrollTable>
  );
}
