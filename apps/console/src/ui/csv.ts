/** RFC 4180 CSV of the given rows and columns; cells that a spreadsheet would run as a formula get a leading ' (a negative integer stays a number). */
export function toCsv(columns: ReadonlyArray<{ label: string; text: (row: never) => string }>, rows: readonly unknown[]): string {
  const cell = (value: string): string => {
    const safe = /^[=+\-@\t\r]/.test(value) && !/^-\d+$/.test(value) ? `'${value}` : value;
    return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
  };
  const lines = [columns.map((c) => cell(c.label)).join(',')];
  for (const row of rows) lines.push(columns.map((c) => cell(c.text(row as never))).join(','));
  return `${lines.join('\r\n')}\r\n`;
}

export function downloadCsv(filename: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/csv;charset=utf-8' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 1_000);
}
