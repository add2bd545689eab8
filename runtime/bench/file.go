package bench

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/rocmforge/forge/internal/atomicfile"
)

// ReadRun reads and validates a run or baseline JSON file. Every error names
// the file and says what is wrong with it: not JSON (with the line and
// column), truncated, JSON of another kind, an unsupported schema version,
// or results that cannot be compared (no name, a name twice, no samples, a
// negative sample).
func ReadRun(path string) (*Run, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err // *PathError: "open PATH: ..."
	}
	defer f.Close()
	return decodeRun(f, path)
}

// DecodeRun reads and validates one run or baseline from r, as ReadRun does;
// its errors call the data "input".
func DecodeRun(r io.Reader) (*Run, error) { return decodeRun(r, "input") }

// Fields newer forgebench versions add within one schema version are
// ignored on purpose: the schema version, not the field set, decides
// whether a file can be read.
func decodeRun(r io.Reader, name string) (*Run, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fmt.Errorf("%s is not a forgebench run or baseline: it is empty", name)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("%s: %s", name, jsonError(data, err))
	}
	if _, err := dec.Token(); err != io.EOF {
		off := dec.InputOffset()
		return nil, fmt.Errorf("%s: not one JSON value: more data follows at %s", name, jsonPosition(data, off))
	}

	// Tell foreign JSON apart before reading the whole schema, so that a
	// file of another kind is named as such rather than by its first
	// mismatched field.
	var probe struct {
		Kind   *string          `json:"kind"`
		Schema *json.RawMessage `json:"schema_version"`
	}
	if bytes.TrimSpace(raw)[0] != '{' {
		return nil, fmt.Errorf("%s is not a forgebench run or baseline: the JSON is %s, not an object", name, jsonKind(raw))
	}
	if json.Unmarshal(raw, &probe) != nil {
		return nil, fmt.Errorf("%s is not a forgebench run or baseline: its \"kind\" is not a string (want %q)", name, Kind)
	}
	switch {
	case probe.Kind == nil:
		return nil, fmt.Errorf("%s is not a forgebench run or baseline: it has no \"kind\" (want %q)", name, Kind)
	case *probe.Kind != Kind:
		return nil, fmt.Errorf("%s is not a forgebench run or baseline: its kind is %q (want %q)", name, *probe.Kind, Kind)
	case probe.Schema == nil:
		return nil, fmt.Errorf("%s: no schema_version (this forgebench reads version %d)", name, SchemaVersion)
	}
	var schema int
	if err := json.Unmarshal(*probe.Schema, &schema); err != nil || schema != SchemaVersion {
		return nil, fmt.Errorf("%s: schema_version %s is not supported (this forgebench reads version %d)", name, *probe.Schema, SchemaVersion)
	}

	var run Run
	if err := json.Unmarshal(raw, &run); err != nil {
		return nil, fmt.Errorf("%s: %s", name, jsonError(data, err))
	}
	if err := run.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &run, nil
}

// Validate checks what comparisons and reports rely on: the kind and schema
// version, and for every result a unique name and at least one sample, none
// negative.
func (r *Run) Validate() error {
	if r.Kind != Kind {
		return fmt.Errorf("kind is %q, want %q", r.Kind, Kind)
	}
	if r.Schema != SchemaVersion {
		return fmt.Errorf("schema_version %d is not supported (want %d)", r.Schema, SchemaVersion)
	}
	seen := make(map[string]int, len(r.Results))
	for i, res := range r.Results {
		if res.Name == "" {
			return fmt.Errorf("result %d has no name", i)
		}
		if j, dup := seen[res.Name]; dup {
			return fmt.Errorf("result %q appears twice (results %d and %d)", res.Name, j, i)
		}
		seen[res.Name] = i
		if len(res.Samples) == 0 && len(res.Metrics) == 0 { // a scenario's figures alone have metrics only
			return fmt.Errorf("result %q has no samples", res.Name)
		}
		for k, s := range res.Samples {
			if s < 0 {
				return fmt.Errorf("result %q: sample %d is negative (%d ns)", res.Name, k, int64(s))
			}
		}
		if res.Elements < 0 || res.BytesRead < 0 || res.BytesWritten < 0 || res.FLOPs < 0 {
			return fmt.Errorf("result %q: negative elements, bytes or FLOPs", res.Name)
		}
	}
	return nil
}

// WriteRun validates run and writes it as indented JSON to path atomically:
// readers see the old file or the whole new one. An empty Kind or Schema is
// filled in; run itself is not modified.
func WriteRun(path string, run *Run) error {
	r := *run
	if r.Kind == "" {
		r.Kind = Kind
	}
	if r.Schema == 0 {
		r.Schema = SchemaVersion
	}
	if err := r.Validate(); err != nil {
		return fmt.Errorf("not writing %s: %w", path, err)
	}
	return atomicfile.Write(path, 0o644, func(w io.Writer) error { return EncodeRun(w, &r) })
}

// EncodeRun writes run as indented JSON, as WriteRun does, without checks.
func EncodeRun(w io.Writer, run *Run) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(run)
}

// jsonError turns encoding/json's errors into messages with a line and
// column.
func jsonError(data []byte, err error) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return fmt.Sprintf("truncated JSON: the data ends at %s before the value is complete", jsonPosition(data, int64(len(data))))
	case errors.As(err, &syn):
		if syn.Offset >= int64(len(data)) {
			return fmt.Sprintf("truncated JSON: the data ends at %s before the value is complete", jsonPosition(data, int64(len(data))))
		}
		// Offset counts the offending byte itself.
		return fmt.Sprintf("not valid JSON at %s: %s", jsonPosition(data, max(0, syn.Offset-1)), syn.Error())
	case errors.As(err, &typ):
		field := typ.Field
		if field == "" {
			field = "a value"
		}
		return fmt.Sprintf("at %s: %s is a JSON %s, want %s", jsonPosition(data, typ.Offset), field, typ.Value, typ.Type)
	}
	return err.Error()
}

// position is "line L, column C" (both from 1) of byte offset off.
func jsonPosition(data []byte, off int64) string {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	line, col := 1, 1
	for _, b := range data[:off] {
		if b == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return fmt.Sprintf("line %d, column %d", line, col)
}

func jsonKind(raw []byte) string {
	switch bytes.TrimSpace(raw)[0] {
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}
