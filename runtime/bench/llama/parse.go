// Package llama owns the other side of forge's side-by-side comparison
// with llama.cpp: it reads the timings that ggml's test-backend-ops prints
// in its perf mode and lines them up with a forgebench run's matvec and
// matmul results, format by format and shape by shape.
//
// test-backend-ops (ggml's tests/test-backend-ops.cpp, at the commit of
// ../shared/anchors) has three output formats. Its --output csv carries no
// timings at all (csv_printer::get_fields_csv keeps op_name, op_params,
// supported, error_message, test_mode, backend_reg_name and backend_name
// only), so Parse reads --output sql, which writes every test_result field
// (time_us with six decimals, n_runs, the device and the build commit) as
// one INSERT line per case; it also reads the default console output
// ("MUL_MAT(...): N runs - T us/run - ...", two decimals), so that logs
// taken by hand can be compared too. time_us is a mean: the total time of
// at least one second of graph computes, each running the op n_runs/k
// times back to back on one weight buffer, divided by the runs.
package llama

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// Case is one perf case test-backend-ops reported.
type Case struct {
	File      string  `json:"file"`      // the input it came from (Parse's name)
	Line      int     `json:"line"`      // its line there
	Op        string  `json:"op"`        // "MUL_MAT"
	Params    string  `json:"op_params"` // the case's variables as printed
	Backend   string  `json:"backend"`   // "CUDA0" (SQL output only)
	Device    string  `json:"device"`    // "NVIDIA H100 80GB HBM3" (SQL output only)
	Commit    string  `json:"commit"`    // ggml's build commit (SQL output only)
	Supported bool    `json:"supported"` // false: the backend has no kernel for it
	Error     string  `json:"error"`     // error_message ("not supported")
	TimeUS    float64 `json:"time_us"`   // mean µs per run
	Runs      int     `json:"n_runs"`    // runs the mean is over

	// The matrix product, when Op is MUL_MAT: ggml's C = A·Bᵀ with A m
	// rows of k elements of TypeA, B n rows of k elements of TypeB.
	TypeA string `json:"type_a,omitempty"`
	TypeB string `json:"type_b,omitempty"`
	M     int    `json:"m,omitempty"`
	N     int    `json:"n,omitempty"`
	K     int    `json:"k,omitempty"`
	// NotPlain says why the case is not one plain 2-D product (a batch,
	// a broadcast, a permuted or strided operand, several outputs); ""
	// when it is. Only plain cases are compared.
	NotPlain string `json:"not_plain,omitempty"`
}

// ReadFile reads the test-backend-ops output in path (Parse).
func ReadFile(path string) ([]Case, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Parse(f, path)
}

// The console printer's perf lines (console_printer::print_perf_console):
// "  MUL_MAT(type_a=q4_0,...):   1234 runs -    15.52 us/run -  ..." and
// "  MUL_MAT(...): not supported".
var (
	consolePerf        = regexp.MustCompile(`^\s*([A-Z0-9_]+)\((.*)\):\s+(\d+) runs - +([0-9.]+) us/run`)
	consoleUnsupported = regexp.MustCompile(`^\s*([A-Z0-9_]+)\((.*)\):\s+not supported`)
)

// sqlInsert is the start of sql_printer::print_test_result's lines.
const sqlInsert = "INSERT INTO test_backend_ops ("

// Parse reads test-backend-ops perf output, --output sql or console,
// from r; name labels its errors. Lines that are neither a case nor part
// of the SQL header (the backend's log, progress) are skipped. A case
// line it cannot read is an error naming the line; so is CSV output (it
// has no timings) and input with no case at all.
func Parse(r io.Reader, name string) ([]Case, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 16<<20)
	var cases []Case
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimRight(sc.Text(), "\r")
		trimmed := strings.TrimSpace(text)
		if line == 1 && strings.HasPrefix(trimmed, `"`) && strings.Contains(trimmed, `"op_params"`) {
			return nil, fmt.Errorf("%s:1: this is test-backend-ops' --output csv, which has no timings (its columns: %s); run it with --output sql", name, trimmed)
		}
		var c Case
		var err error
		switch {
		case strings.HasPrefix(trimmed, sqlInsert):
			c, err = parseSQL(trimmed)
		case consolePerf.MatchString(text):
			c, err = parseConsole(consolePerf.FindStringSubmatch(text))
		case consoleUnsupported.MatchString(text):
			m := consoleUnsupported.FindStringSubmatch(text)
			c = Case{Op: m[1], Params: m[2], Error: "not supported"}
		default:
			continue
		}
		if err == nil {
			err = c.readParams()
		}
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		c.File, c.Line = name, line
		cases = append(cases, c)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", name, line+1, err)
	}
	if len(cases) == 0 {
		return nil, fmt.Errorf("%s: no test-backend-ops perf case in %d lines (want the output of `test-backend-ops perf --output sql`)", name, line)
	}
	return cases, nil
}

func parseConsole(m []string) (Case, error) {
	runs, err := strconv.Atoi(m[3])
	if err != nil {
		return Case{}, fmt.Errorf("runs %q: %w", m[3], err)
	}
	t, err := strconv.ParseFloat(m[4], 64)
	if err != nil {
		return Case{}, fmt.Errorf("us/run %q: %w", m[4], err)
	}
	return Case{Op: m[1], Params: m[2], Supported: true, TimeUS: t, Runs: runs}, nil
}

// parseSQL reads one INSERT line of sql_printer::print_test_result:
//
//	INSERT INTO test_backend_ops (f1, f2, ...) VALUES ('v1', 'v2', ...);
//
// Values are single-quoted and not escaped (none of a perf case's
// contains a quote), so each value ends at the next quote.
func parseSQL(s string) (Case, error) {
	rest := strings.TrimPrefix(s, sqlInsert)
	end := strings.Index(rest, ")")
	if end < 0 {
		return Case{}, fmt.Errorf("INSERT: no ')' after the column list")
	}
	var cols []string
	for _, f := range strings.Split(rest[:end], ",") {
		cols = append(cols, strings.TrimSpace(f))
	}
	rest = strings.TrimSpace(rest[end+1:])
	if !strings.HasPrefix(rest, "VALUES (") {
		return Case{}, fmt.Errorf("INSERT: want VALUES (...) after the column list, got %q", clip(rest))
	}
	rest = rest[len("VALUES ("):]
	var vals []string
	for i, col := range cols {
		if !strings.HasPrefix(rest, "'") {
			return Case{}, fmt.Errorf("INSERT: value %d (%s) does not start with a quote: %q", i+1, col, clip(rest))
		}
		end := strings.IndexByte(rest[1:], '\'')
		if end < 0 {
			return Case{}, fmt.Errorf("INSERT: value %d (%s) has no closing quote: the line ends first", i+1, col)
		}
		vals = append(vals, rest[1:1+end])
		rest = rest[end+2:]
		sep := ", "
		if i == len(cols)-1 {
			sep = ");"
		}
		if !strings.HasPrefix(rest, sep) {
			return Case{}, fmt.Errorf("INSERT: want %q after value %d (%s), got %q (%d columns)", sep, i+1, col, clip(rest), len(cols))
		}
		rest = rest[len(sep):]
	}
	if r := strings.TrimSpace(rest); r != "" {
		return Case{}, fmt.Errorf("INSERT: more follows the %d values: %q", len(cols), clip(r))
	}
	get := make(map[string]string, len(cols))
	for i, c := range cols {
		get[c] = vals[i]
	}
	for _, k := range []string{"op_name", "op_params", "test_mode", "supported", "time_us"} {
		if _, ok := get[k]; !ok {
			return Case{}, fmt.Errorf("INSERT: no %s column (columns: %s)", k, strings.Join(cols, ", "))
		}
	}
	if m := get["test_mode"]; m != "perf" {
		return Case{}, fmt.Errorf("test_mode is %q, want \"perf\" (run test-backend-ops perf)", m)
	}
	c := Case{Op: get["op_name"], Params: get["op_params"], Backend: get["backend_name"],
		Device: get["device_description"], Commit: get["build_commit"], Error: get["error_message"]}
	switch get["supported"] {
	case "1":
		c.Supported = true
	case "0":
	default:
		return Case{}, fmt.Errorf("supported is %q, want 1 or 0", get["supported"])
	}
	var err error
	if c.TimeUS, err = strconv.ParseFloat(get["time_us"], 64); err != nil || c.TimeUS < 0 {
		return Case{}, fmt.Errorf("time_us %q is not a non-negative number", get["time_us"])
	}
	if c.Supported && c.TimeUS == 0 {
		return Case{}, fmt.Errorf("a supported case with time_us 0")
	}
	if v, ok := get["n_runs"]; ok {
		if c.Runs, err = strconv.Atoi(v); err != nil {
			return Case{}, fmt.Errorf("n_runs %q is not an integer", v)
		}
	}
	return c, nil
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

// vars splits a case's variables, "a=1,b=[1,2],c=x" (VARS_TO_STR), at
// the commas outside brackets. An item without "=" continues the one
// before: test_generic_op's "sources=q4_0[k,m,1,1],f32[k,n,1,1]".
func vars(s string) (map[string]string, error) {
	out := map[string]string{}
	var b bytes.Buffer
	depth, last := 0, ""
	flush := func() error {
		item := b.String()
		b.Reset()
		k, v, ok := strings.Cut(item, "=")
		if !ok || strings.ContainsAny(k, "[]") {
			if last == "" {
				return fmt.Errorf("op_params %q: %q is not NAME=VALUE", s, item)
			}
			out[last] += "," + item
			return nil
		}
		out[k], last = v, k
		return nil
	}
	for i := 0; i < len(s); i++ {
		switch ch := s[i]; {
		case ch == '[':
			depth++
		case ch == ']':
			depth--
		case ch == ',' && depth == 0:
			if err := flush(); err != nil {
				return nil, err
			}
			continue
		}
		b.WriteByte(s[i])
	}
	if depth != 0 {
		return nil, fmt.Errorf("op_params %q: unbalanced brackets", s)
	}
	if b.Len() > 0 {
		if err := flush(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// readParams fills a MUL_MAT case's product from its variables, in
// either form test-backend-ops prints them: test_mul_mat's
// "type_a=q4_0,type_b=f32,m=4096,n=1,k=14336,bs=[1,1],nr=[1,1],
// per=[0,1,2,3],k_v=0,o=1,src_overlap=0", or, for a case read with
// --test-file, test_generic_op's "type=f32,ne=[m,n,1,1],op_params=[],
// sources=q4_0[k,m,1,1],f32[k,n,1,1]" (a source with strides adds
// "nb[...]"). Other ops are kept as they are.
func (c *Case) readParams() error {
	if c.Op != "MUL_MAT" {
		return nil
	}
	v, err := vars(c.Params)
	if err != nil {
		return err
	}
	if _, ok := v["sources"]; ok {
		return c.readGeneric(v)
	}
	for _, k := range []string{"type_a", "type_b", "m", "n", "k"} {
		if _, ok := v[k]; !ok {
			return fmt.Errorf("MUL_MAT op_params %q: no %s", c.Params, k)
		}
	}
	c.TypeA, c.TypeB = v["type_a"], v["type_b"]
	for _, d := range []struct {
		k string
		p *int
	}{{"m", &c.M}, {"n", &c.N}, {"k", &c.K}} {
		n, err := strconv.Atoi(v[d.k])
		if err != nil || n <= 0 {
			return fmt.Errorf("MUL_MAT op_params %q: %s=%s is not a positive integer", c.Params, d.k, v[d.k])
		}
		*d.p = n
	}
	plain := map[string]string{"bs": "[1,1]", "nr": "[1,1]", "per": "[0,1,2,3]", "k_v": "0", "o": "1", "src_overlap": "0"}
	for _, k := range []string{"bs", "nr", "per", "k_v", "o", "src_overlap"} {
		if got, ok := v[k]; ok && got != plain[k] {
			c.NotPlain = fmt.Sprintf("%s=%s (a plain product has %s=%s)", k, got, k, plain[k])
			break
		}
	}
	return nil
}

// genericSource is one of test_generic_op's sources: "q4_0[14336,4096,1,1]".
var genericSource = regexp.MustCompile(`^([a-z0-9_A-Z]+)\[(\d+),(\d+),(\d+),(\d+)\](nb\[.*\])?$`)

func (c *Case) readGeneric(v map[string]string) error {
	srcs := strings.Split(v["sources"], ",")
	// The bracketed lists hold commas too: rejoin "q4_0[a", "b", "c", "d]".
	var items []string
	for _, s := range srcs {
		if n := len(items); n > 0 && strings.Count(items[n-1], "[") > strings.Count(items[n-1], "]") {
			items[n-1] += "," + s
			continue
		}
		items = append(items, s)
	}
	if len(items) != 2 {
		return fmt.Errorf("MUL_MAT op_params %q: want 2 sources, got %d", c.Params, len(items))
	}
	var ne [2][4]int
	var types [2]string
	for i, it := range items {
		m := genericSource.FindStringSubmatch(it)
		if m == nil {
			return fmt.Errorf("MUL_MAT op_params %q: source %q is not TYPE[ne0,ne1,ne2,ne3]", c.Params, it)
		}
		types[i] = m[1]
		for d := range 4 {
			ne[i][d], _ = strconv.Atoi(m[2+d])
		}
		if m[6] != "" && c.NotPlain == "" {
			c.NotPlain = fmt.Sprintf("source %d has strides %s", i, m[6])
		}
	}
	c.TypeA, c.TypeB = types[0], types[1]
	c.K, c.M, c.N = ne[0][0], ne[0][1], ne[1][1]
	switch {
	case c.K <= 0 || c.M <= 0 || c.N <= 0:
		return fmt.Errorf("MUL_MAT op_params %q: a zero dimension", c.Params)
	case ne[1][0] != c.K:
		return fmt.Errorf("MUL_MAT op_params %q: the sources' rows differ (%d and %d elements)", c.Params, c.K, ne[1][0])
	case c.NotPlain == "" && (ne[0][2] != 1 || ne[0][3] != 1 || ne[1][2] != 1 || ne[1][3] != 1):
		c.NotPlain = "a batch of products (ne2, ne3 > 1)"
	}
	return nil
}
