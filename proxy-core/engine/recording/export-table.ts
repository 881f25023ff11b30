// One Parquet file written a row group at a time (hyparquet-writer; docs/decisions.md, "Exporting a
// recording as Parquet"): rows are added column by column into buffers of one row group, written out
// when full, so memory holds one row group whatever the file's length (and a growth limit, checked
// after each group, collects the garbage the writer leaves per group). The file is written under a
// temporary name and renamed when whole: a failed export leaves no file that looks finished.
import { renameSync, rmSync } from 'node:fs';
import { fileWriter, ParquetWriter } from 'hyparquet-writer';
import type { GrowthLimit } from '../util/collect.js';

type SchemaElement = ConstructorParameters<typeof ParquetWriter>[0]['schema'][number];

/** time: epoch ms as a UTC timestamp; string: UTF-8; int32, int64: integers. */
export type ColumnKind = 'time' | 'string' | 'int32' | 'int64';

export interface ColumnSpec {
  readonly name: string;
  readonly kind: ColumnKind;
  /** May hold null (absent); default required. */
  readonly optional?: boolean;
}

function schemaElement({ name, kind, optional }: ColumnSpec): SchemaElement {
  const repetition_type = optional ? 'OPTIONAL' : 'REQUIRED';
  switch (kind) {
    case 'time':
      return {
        name,
        type: 'INT64',
        repetition_type,
        converted_type: 'TIMESTAMP_MILLIS',
        logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MILLIS' },
      };
    case 'string':
      return { name, type: 'BYTE_ARRAY', repetition_type, converted_type: 'UTF8' };
    case 'int32':
      return { name, type: 'INT32', repetition_type };
    case 'int64':
      return { name, type: 'INT64', repetition_type };
  }
}

export class ParquetTable {
  private readonly writer: ParquetWriter;
  private readonly partial: string;
  /** One row group's cells, column by column, reused from one row group to the next (no garbage per row). */
  readonly columns: unknown[][];
  /** The row being filled: set `columns[c][row]` for every column c, then call endRow(). */
  row = 0;
  /** Rows written to the file so far. */
  rows = 0;

  constructor(
    readonly file: string,
    private readonly specs: readonly ColumnSpec[],
    private readonly rowGroupRows: number,
    metadata: Record<string, string>,
    private readonly limit?: GrowthLimit,
  ) {
    this.partial = `${file}.partial`;
    this.columns = specs.map(() => new Array<unknown>(rowGroupRows));
    this.writer = new ParquetWriter({
      writer: fileWriter(this.partial),
      schema: [{ name: 'root', num_children: specs.length }, ...specs.map(schemaElement)],
      kvMetadata: Object.entries(metadata).map(([key, value]) => ({ key, value })),
      createdBy: 'peerscope',
    });
  }

  /** One row, its values in the columns' order. */
  add(values: readonly unknown[]): void {
    for (let i = 0; i < values.length; i++) this.columns[i]![this.row] = values[i];
    this.endRow();
  }

  endRow(): void {
    if (++this.row >= this.rowGroupRows) this.flush();
  }

  /** Writes the filled rows as one row group. */
  private flush(): void {
    const n = this.row;
    if (n === 0) return;
    const columnData = this.specs.map((spec, i) => {
      const cells = this.columns[i]!;
      const data = n === cells.length ? cells : cells.slice(0, n);
      // INT64 values go to the writer as bigints; the times are converted by the writer itself.
      return { name: spec.name, data: spec.kind === 'int64' ? BigInt64Array.from(data as number[], (v) => BigInt(v)) : data };
    });
    void this.writer.write({ columnData: columnData as Parameters<ParquetWriter['write']>[0]['columnData'], rowGroupSize: n });
    this.rows += n;
    this.row = 0;
    this.limit?.check();
  }

  /** Writes what is buffered and the footer, and gives the file its name. */
  finish(): void {
    this.flush();
    void this.writer.finish();
    renameSync(this.partial, this.file);
  }

  /** Removes the unfinished file. */
  abandon(): void {
    rmSync(this.partial, { force: true });
  }
}
