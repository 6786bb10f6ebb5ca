import { describe, expect, it } from 'vitest';
import { csvField } from '../../../src/api/csv';
import { journalCsv } from '../../../src/api/journal-csv';

describe('the journal as CSV', () => {
  it('quotes what needs quoting and defuses what a spreadsheet would run', () => {
    expect(csvField('Sales, EU')).toBe('"Sales, EU"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('=HYPERLINK("http://x")')).toBe(`"'=HYPERLINK(""http://x"")"`);
    expect(csvField('+1')).toBe("'+1");
    expect(csvField(undefined)).toBe('');
    expect(csvField(3)).toBe('3');
  });

  it('writes a header and one CRLF line per entry, in the API order', () => {
    const csv = journalCsv([
      {
        key: 'k1',
        connector: 'hr',
        accountId: 'jane',
        requestId: 'r1',
        step: 0,
        change: 'member added',
        groupName: '<img src=x>',
        groupId: 'g1',
        at: '2026-11-22T08:00:00.000Z',
        requestedBy: 'ada',
        reason: 'joiner, day 1',
        submittedBy: 'bob@contoso.example',
      },
    ]);
    expect(csv).toBe(
      'at,connector,accountId,change,groupName,groupId,requestId,step,requestedBy,reason,correlationId,key,submittedBy\r\n' +
        '2026-11-22T08:00:00.000Z,hr,jane,member added,<img src=x>,g1,r1,0,ada,"joiner, day 1",,k1,bob@contoso.example\r\n',
    );
  });
});
