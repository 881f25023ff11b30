// Rows of text as aligned columns, for the CLI's tables (the first row is usually the header).
export function formatTable(rows: readonly (readonly string[])[], gap = '   '): string[] {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows.map((row) =>
    row
      .map((cell, i) => cell.padEnd(widths[i]!))
      .join(gap)
      .trimEnd(),
  );
}
