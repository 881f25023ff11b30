// parquet-check: reads a Parquet file with github.com/parquet-go/parquet-go — a reader independent of
// the JavaScript writer Peerscope exports with — and prints what it found as one JSON document: the
// row and row-group counts, each column's name and type as the file declares them, the file's
// key-value metadata, and every row (null, a number or a string per cell). The export's test compares
// that with the recording. Usage: parquet-check FILE
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/parquet-go/parquet-go"
)

type column struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	Optional bool   `json:"optional"`
}

type report struct {
	Rows      int64             `json:"rows"`
	RowGroups int               `json:"rowGroups"`
	Columns   []column          `json:"columns"`
	Metadata  map[string]string `json:"metadata"`
	Data      [][]any           `json:"data"`
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: parquet-check FILE")
		os.Exit(2)
	}
	if err := check(os.Args[1]); err != nil {
		fmt.Fprintf(os.Stderr, "parquet-check: %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
}

func check(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		return err
	}
	out := report{Rows: pf.NumRows(), RowGroups: len(pf.RowGroups()), Metadata: map[string]string{}, Data: [][]any{}}
	for _, field := range pf.Schema().Fields() {
		out.Columns = append(out.Columns, column{Name: field.Name(), Type: field.Type().String(), Optional: field.Optional()})
	}
	for _, kv := range pf.Metadata().KeyValueMetadata {
		out.Metadata[kv.Key] = kv.Value
	}
	for _, rg := range pf.RowGroups() {
		if err := readRows(rg, len(out.Columns), &out.Data); err != nil {
			return err
		}
	}
	return json.NewEncoder(os.Stdout).Encode(out)
}

func readRows(rg parquet.RowGroup, columns int, data *[][]any) error {
	rows := rg.Rows()
	defer rows.Close()
	buf := make([]parquet.Row, 1024)
	for {
		n, err := rows.ReadRows(buf)
		for _, row := range buf[:n] {
			cells := make([]any, columns)
			for _, v := range row {
				cells[v.Column()] = cell(v)
			}
			*data = append(*data, cells)
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func cell(v parquet.Value) any {
	if v.IsNull() {
		return nil
	}
	switch v.Kind() {
	case parquet.Int32:
		return v.Int32()
	case parquet.Int64:
		return v.Int64()
	case parquet.ByteArray:
		return string(v.ByteArray())
	case parquet.Boolean:
		return v.Boolean()
	case parquet.Double:
		return v.Double()
	default:
		return v.String()
	}
}
