package bench

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/perf/benchfmt"

	"github.com/rocmforge/forge/runtime/backend"
	"github.com/rocmforge/forge/runtime/suite"
)

// WriteJSON writes run as indented JSON: the schema of model.go.
func WriteJSON(w io.Writer, run *Run) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(run)
}

// TableColumns are the terminal table's columns.
var TableColumns = []string{"benchmark", "n", "min", "p50", "p95", "p99", "max", "±stddev", "GB/s", "%copy", "Gelem/s", "GFLOPS", "ratio"}

// WriteTable writes run as a terminal table: a line naming the backend,
// device and copy roofline, then one row per result with aligned columns
// (TableColumns): sample count, min, p50, p95, p99 and max time per
// iteration (p95 and p99 "-" with too few samples to tell them from the
// maximum: QuantileMinN), the standard deviation as a percentage of the
// mean ("!" after it past NoiseCV: a noisy benchmark), GB/s
// (bytes read + written over the median time), % of the copy roofline,
// GFLOPS where the family computes (matvec, matmul),
// G elements/s and the format's compression ratio against f32.
func WriteTable(w io.Writer, run *Run) error {
	m := run.Meta
	var head strings.Builder
	fmt.Fprintf(&head, "backend %s on %s (%s", m.Backend, m.Device, m.Arch)
	if m.Target != "" && m.Target != m.Arch {
		fmt.Fprintf(&head, ", target %s", m.Target)
	}
	fmt.Fprintf(&head, "), %d CPUs, %s, %s, forge %s", m.CPUs, m.OS, m.GoVersion, m.ForgeVersion)
	if m.ForgeCommit != "" {
		fmt.Fprintf(&head, " %.12s", m.ForgeCommit)
		if m.ForgeModified {
			head.WriteString("+dirty")
		}
	}
	var b strings.Builder
	b.WriteString(Printable(head.String()) + "\n") // the device's and host's names are not ours
	if r := run.Roofline; r != nil {
		fmt.Fprintf(&b, "copy roofline: %.2f GB/s (%s of %s, bytes read + written)\n", r.GBps, Printable(r.Method), formatBytes(r.Bytes))
	}
	if s := WeightsSummary(run); s != "" {
		fmt.Fprintf(&b, "weights: %s\n", Printable(s))
	}
	writeRunNotes(&b, run) // the model of a --gguf run, the GPU's clocks (clocks.go)
	rows := [][]string{TableColumns}
	for i := range run.Results {
		r := &run.Results[i]
		s := r.Stats
		if s.N == 0 {
			continue // a scenario's case of figures alone: its metrics table has it
		}
		c := cellsOf(r)
		rows = append(rows, []string{r.Name, strconv.Itoa(s.N),
			FormatDuration(s.Min), FormatDuration(s.P50), c.p95, c.p99, FormatDuration(s.Max),
			c.sd, c.gbps, c.pct, c.gelems, c.gflops, c.ratio})
	}
	if len(rows) > 1 {
		alignRows(&b, rows)
	}
	writeMetricTables(&b, run)
	if run.Interrupted {
		fmt.Fprintf(&b, "interrupted: %d benchmark(s) finished before the run was stopped\n", len(run.Results))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeMetricTables writes, after the timing table, MetricTables.
func writeMetricTables(b *strings.Builder, run *Run) {
	for _, t := range MetricTables(run) {
		b.WriteByte('\n')
		alignRows(b, append([][]string{t.Head}, t.Rows...))
	}
}

// MetricTable is the figures of a group of a scenario suite's cases: a
// row per case, a column per metric.
type MetricTable struct {
	Suite string     // the group: a suite, or a suite and its cases' first name element
	Head  []string   // the group's name, then "metric (unit)" per column
	Rows  [][]string // the case's name below the group, then each metric ("-": not reported)
}

// MetricTables are one table per group of cases of the scenario suites
// (the results that carry metrics), in order of first appearance: a
// group is a suite's cases that share their first name element
// ("memory/kv_cache/grow" holds grow/t512/grown and grow/t512/prealloc),
// so that each table has the columns its cases report. Columns are the
// group's metrics in order of first appearance.
func MetricTables(run *Run) []MetricTable {
	group := func(r *Result) string {
		c := strings.TrimPrefix(strings.TrimPrefix(r.Name, r.Suite), "/")
		if first, _, ok := strings.Cut(c, "/"); ok {
			return r.Suite + "/" + first
		}
		return r.Suite
	}
	var groups []string
	for i := range run.Results {
		if r := &run.Results[i]; len(r.Metrics) > 0 && !slices.Contains(groups, group(r)) {
			groups = append(groups, group(r))
		}
	}
	var out []MetricTable
	for _, name := range groups {
		var cols []suite.Metric // name and unit of each column
		var members []*Result
		for i := range run.Results {
			if r := &run.Results[i]; len(r.Metrics) > 0 && group(r) == name {
				members = append(members, r)
				for _, m := range r.Metrics {
					if !slices.ContainsFunc(cols, func(c suite.Metric) bool { return c.Name == m.Name }) {
						cols = append(cols, m)
					}
				}
			}
		}
		t := MetricTable{Suite: name, Head: []string{name}}
		for _, c := range cols {
			h := c.Name
			if c.Unit != "" {
				h += " (" + c.Unit + ")"
			}
			t.Head = append(t.Head, h)
		}
		for _, r := range members {
			row := []string{strings.TrimPrefix(strings.TrimPrefix(r.Name, name), "/")}
			if row[0] == "" {
				row[0] = "."
			}
			for _, c := range cols {
				cell := "-"
				for _, m := range r.Metrics {
					if m.Name == c.Name {
						cell = MetricCell(m)
					}
				}
				row = append(row, cell)
			}
			t.Rows = append(t.Rows, row)
		}
		out = append(out, t)
	}
	return out
}

// MetricCell spells a metric's value for a table: bytes in binary
// units, rates and counts with four significant digits.
func MetricCell(m suite.Metric) string {
	v := m.Value
	switch m.Unit {
	case "B":
		a := math.Abs(v)
		switch {
		case a >= 1<<30:
			return fmt.Sprintf("%.4g GiB", v/(1<<30))
		case a >= 1<<20:
			return fmt.Sprintf("%.4g MiB", v/(1<<20))
		case a >= 1<<10:
			return fmt.Sprintf("%.4g KiB", v/(1<<10))
		}
		return fmt.Sprintf("%.4g B", v)
	case "B/s":
		return fmt.Sprintf("%.4g GB/s", v/1e9)
	case "s":
		return FormatDuration(time.Duration(v * 1e9))
	case "%":
		return fmt.Sprintf("%.2f%%", v)
	case "x":
		return fmt.Sprintf("%.3gx", v)
	}
	if v == float64(int64(v)) && v < 1e15 && v > -1e15 {
		return strconv.FormatInt(int64(v), 10)
	}
	return fmt.Sprintf("%.4g", v)
}

// Printable returns s with what a terminal or a CSV reader would act on
// written as Go escapes: control bytes (C0, including tab and newline;
// ESC, which starts a colour or cursor sequence; DEL), C1 controls,
// invisible format characters such as bidi overrides (\u202e) and
// non-ASCII spaces (everything strconv.IsPrint refuses but ' '), and bytes
// that are not UTF-8 (\xff). Printable text, other scripts included, is
// left as it is. Tensor names, metadata and a run file's strings come from
// files anyone may have written; they pass through here on their way to a
// table, a CSV cell or a Go benchmark line.
func Printable(s string) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || r != ' ' && !strconv.IsPrint(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1: // not UTF-8
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == ' ' || strconv.IsPrint(r):
			b.WriteString(s[i : i+n])
		default:
			q := strconv.QuoteRune(r) // '\x1b', '\n', '\u202e'
			b.WriteString(q[1 : len(q)-1])
		}
		i += n
	}
	return b.String()
}

// alignRows writes rows in columns two spaces apart, the first column
// left-aligned and the others right-aligned.
func alignRows(b *strings.Builder, rows [][]string) {
	WriteColumns(b, rows, func(col int) bool { return col > 0 })
}

// WriteColumns writes rows (the first one sets the column count) in
// columns two spaces apart, each padded to its widest cell in characters
// ("µ" is one); right(col) aligns column col to the right. Lines carry no
// trailing spaces. Every cell is shown through Printable: a name with a
// newline or an escape sequence in it stays in its cell.
func WriteColumns(b *strings.Builder, rows [][]string, right func(col int) bool) {
	if len(rows) == 0 {
		return
	}
	cells := make([][]string, len(rows))
	width := make([]int, len(rows[0]))
	for k, r := range rows {
		cells[k] = make([]string, len(r))
		for i, c := range r {
			cells[k][i] = Printable(c)
			width[i] = max(width[i], utf8.RuneCountInString(cells[k][i]))
		}
	}
	for _, r := range cells {
		var line strings.Builder
		for i, c := range r {
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(c))
			if i > 0 {
				line.WriteString("  ")
			}
			if right(i) {
				line.WriteString(pad + c)
			} else {
				line.WriteString(c + pad)
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " "))
		b.WriteByte('\n')
	}
}

// FormatDuration spells d with three significant digits in ns, µs, ms or s.
func FormatDuration(d time.Duration) string {
	ns := float64(d)
	switch {
	case d <= 0:
		return "0"
	case ns < 1e3:
		return fmt.Sprintf("%.0fns", ns)
	case ns < 1e6:
		return sig3(ns/1e3) + "µs"
	case ns < 1e9:
		return sig3(ns/1e6) + "ms"
	}
	return sig3(ns/1e9) + "s"
}

// sig3 prints v (1 ≤ v < 1000, or more for seconds) with three significant
// digits.
func sig3(v float64) string {
	switch {
	case v < 10:
		return strconv.FormatFloat(v, 'f', 2, 64)
	case v < 100:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', 0, 64)
}

func formatBytes(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// CSVHeader is the CSV output's header row.
var CSVHeader = []string{
	"name", "suite", "family", "kernel", "format", "output", "shape", "elements",
	"bytes_read", "bytes_written", "compression", "warmup",
	"n", "min_ns", "mean_ns", "max_ns", "p50_ns", "p95_ns", "p99_ns", "stddev_ns", "p50_ci_lo_ns", "p50_ci_hi_ns",
	"elems_per_s", "gbps", "gflops", "pct_copy", "metrics",
	"started", "backend", "device", "target", "host", "forge_commit", "interrupted",
}

// WriteCSV writes a header row (CSVHeader) and one row per result: its
// identity, sizes and statistics (times in integer nanoseconds, shape as
// dimensions joined by "x"), then the run's start (RFC 3339), machine
// (backend, device, target, host), forge commit (with "+dirty" when the
// tree differed) and whether it was interrupted, so that the CSVs of
// several runs concatenate into one table. The samples themselves are in
// the JSON.
func WriteCSV(w io.Writer, run *Run) error {
	m := run.Meta
	commit := m.ForgeCommit
	if commit != "" && m.ForgeModified {
		commit += "+dirty"
	}
	started := ""
	if !run.Started.IsZero() {
		started = run.Started.UTC().Format(time.RFC3339)
	}
	cw := csv.NewWriter(w)
	cw.Write(CSVHeader)
	for i := range run.Results {
		r := &run.Results[i]
		s := r.Stats
		shape := make([]string, len(r.Shape))
		for j, d := range r.Shape {
			shape[j] = strconv.Itoa(d)
		}
		ns := func(d time.Duration) string { return strconv.FormatInt(int64(d), 10) }
		row := []string{
			r.Name, r.Suite, r.Family, r.Kernel, r.Format, r.Output, strings.Join(shape, "x"), strconv.FormatInt(r.Elements, 10),
			strconv.FormatInt(r.BytesRead, 10), strconv.FormatInt(r.BytesWritten, 10), fmtFloat(r.Compression), strconv.Itoa(r.Warmup),
			strconv.Itoa(s.N), ns(s.Min), ns(s.Mean), ns(s.Max), ns(s.P50), ns(s.P95), ns(s.P99), ns(s.StdDev), ns(s.P50Lo), ns(s.P50Hi),
			fmtFloat(s.ElemsPS), fmtFloat(s.GBps), fmtFloat(s.GFLOPS), fmtFloat(s.PctCopy), csvMetrics(r.Metrics),
			started, m.Backend, m.Device, m.Target, m.Hostname, commit, strconv.FormatBool(run.Interrupted),
		}
		// The names may come from a GGUF file (a tensor's) or a run file:
		// no raw control bytes or invalid UTF-8 in a CSV cell.
		for k, cell := range row {
			row[k] = Printable(cell)
		}
		cw.Write(row)
	}
	cw.Flush()
	return cw.Error()
}

// csvMetrics spells metrics in one CSV field: "name=value unit;…".
func csvMetrics(ms []suite.Metric) string {
	parts := make([]string, len(ms))
	for i, m := range ms {
		parts[i] = m.Name + "=" + fmtFloat(m.Value)
		if m.Unit != "" {
			parts[i] += " " + m.Unit
		}
	}
	return strings.Join(parts, ";")
}

func fmtFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// GoPkg is the pkg of the Go benchmark format's results: the generated
// suites' package, whose `go test -bench` benchmarks these are.
const GoPkg = "github.com/rocmforge/forge/generated/suites"

// Units of the Go benchmark format's lines besides ns/op.
const (
	UnitBytesPerSec = "B/s"     // bytes read + written per second
	UnitElemsPerSec = "elems/s" // elements produced per second
	UnitPctCopy     = "%copy"   // percent of the run's copy roofline
)

// GoName is result r's name in the Go benchmark format (after
// "Benchmark"): its kernel segment in Go's CamelCase ("dequant_f32" →
// "DequantF32", so "dequant_f32/Q4_0" → "DequantF32/Q4_0", close to the
// generated BenchmarkDequantF32Q4_0), "gguf" as "GGUF", no white space
// (a run of it is one "_": the format ends a name at a space) and what is
// left of control bytes and invalid UTF-8 escaped (Printable).
func GoName(r *Result) string {
	parts := strings.Split(r.Name, "/")
	for i, p := range parts {
		switch {
		case p == r.Kernel && p != "":
			parts[i] = camel(p)
		case i == 0 && p == "gguf":
			parts[i] = "GGUF"
		}
	}
	return goField(strings.Join(parts, "/"), "_")
}

// goField is s as one field of a Go benchmark line: each run of white
// space (newlines included) becomes sep, the rest passes through Printable.
func goField(s, sep string) string {
	return Printable(strings.Join(strings.Fields(s), sep))
}

// camel turns snake_case into CamelCase.
func camel(s string) string {
	var b strings.Builder
	for _, w := range strings.Split(s, "_") {
		if w != "" {
			b.WriteString(strings.ToUpper(w[:1]) + w[1:])
		}
	}
	return b.String()
}

// WriteGoBench writes run in the Go benchmark format
// (golang.org/design/14313-benchmark-format) through benchfmt's Writer,
// so that benchstat pairs two runs into one table: configuration lines
// (benchstat's grouping keys) only for what was measured and where — goos,
// goarch, pkg and cpu (the host's processor) as `go test` writes them,
// then backend, device, arch, target and weights; the facts of one run
// (forge-version, forge-commit, library, roofline-gbps, interrupted) as
// "# key: value" lines, which the format ignores, so that two commits or
// two copy measurements still pair; the copy roofline, when measured, as
// a benchmark of its own, CopyRoofline (its B/s); and one benchmark line
// per sample — iterations 1, its ns/op, B/s and elems/s, and %copy when
// the run measured a roofline. On the cpu the names end in -GOMAXPROCS,
// as `go test` names them.
func WriteGoBench(w io.Writer, run *Run) error {
	m := run.Meta
	var facts strings.Builder
	fact := func(k, v string) {
		if v = goField(v, " "); v != "" {
			fmt.Fprintf(&facts, "# %s: %s\n", k, v)
		}
	}
	fact("forge-version", m.ForgeVersion)
	fact("forge-commit", m.ForgeCommit)
	fact("library", m.Library)
	if run.Roofline != nil {
		fact("roofline-gbps", fmtFloat(run.Roofline.GBps))
	}
	if run.Interrupted {
		fact("interrupted", "true")
	}
	if _, err := io.WriteString(w, facts.String()); err != nil {
		return err
	}
	bw := benchfmt.NewWriter(w)
	units := []string{UnitElemsPerSec}
	if run.Roofline != nil {
		units = append(units, UnitPctCopy)
	}
	for _, u := range units {
		if err := bw.Write(&benchfmt.UnitMetadata{UnitMetadataKey: benchfmt.UnitMetadataKey{Unit: u, Key: "better"}, OrigUnit: u, Value: "higher"}); err != nil {
			return err
		}
	}
	goos, goarch, _ := strings.Cut(m.OS, "/")
	res := &benchfmt.Result{}
	config := func(k, v string) {
		if v = goField(v, " "); v != "" {
			res.Config = append(res.Config, benchfmt.Config{Key: k, Value: []byte(v), File: true})
		}
	}
	config("goos", goos)
	config("goarch", goarch)
	config("pkg", GoPkg)
	config("cpu", CPUModel())
	config("backend", m.Backend)
	config("device", m.Device)
	config("arch", m.Arch)
	config("target", m.Target)
	config("weights", strings.Join(weightModes(run), ","))
	suffix := ""
	if m.Backend == "cpu" && m.CPUs > 1 {
		suffix = "-" + strconv.Itoa(m.CPUs)
	}
	if run.Roofline != nil && run.Roofline.GBps > 0 {
		res.Name = benchfmt.Name("CopyRoofline" + suffix)
		res.Iters = 1
		res.Values = append(res.Values[:0], benchfmt.Value{Value: run.Roofline.GBps * 1e9, Unit: UnitBytesPerSec})
		if err := bw.Write(res); err != nil {
			return err
		}
	}
	for i := range run.Results {
		r := &run.Results[i]
		res.Name = benchfmt.Name(GoName(r) + suffix)
		res.Iters = 1
		if len(r.Samples) == 0 && len(r.Metrics) > 0 { // a scenario's figures alone
			res.Values = appendMetricValues(res.Values[:0], r.Metrics)
			if err := bw.Write(res); err != nil {
				return err
			}
		}
		for _, d := range r.Samples {
			sec := max(d.Seconds(), 1e-9) // a clock's zero is below its resolution
			res.Values = append(res.Values[:0],
				benchfmt.Value{Value: float64(d), Unit: "ns/op"},
				benchfmt.Value{Value: float64(r.BytesRead+r.BytesWritten) / sec, Unit: UnitBytesPerSec},
				benchfmt.Value{Value: float64(r.Elements) / sec, Unit: UnitElemsPerSec})
			if roof := RooflineFor(run.Roofline, r.BytesRead+r.BytesWritten); roof > 0 {
				gbps := float64(r.BytesRead+r.BytesWritten) / sec / 1e9
				res.Values = append(res.Values, benchfmt.Value{Value: 100 * gbps / roof, Unit: UnitPctCopy})
			}
			res.Values = appendMetricValues(res.Values, r.Metrics)
			if err := bw.Write(res); err != nil {
				return err
			}
		}
	}
	return nil
}

// appendMetricValues adds a scenario's metrics to a benchmark line, each
// as a unit of its own: "hit_rate-%", "peak_in_use-B", "allocs".
func appendMetricValues(vs []benchfmt.Value, ms []suite.Metric) []benchfmt.Value {
	for _, m := range ms {
		unit := m.Name
		if m.Unit != "" {
			unit += "-" + m.Unit
		}
		vs = append(vs, benchfmt.Value{Value: m.Value, Unit: goField(unit, "_")})
	}
	return vs
}

// weightModes are the weight modes of run's results, in order of first use.
func weightModes(run *Run) []string {
	var modes []string
	for _, r := range run.Results {
		if r.Weights != nil && !slices.Contains(modes, string(r.Weights.Mode)) {
			modes = append(modes, string(r.Weights.Mode))
		}
	}
	return modes
}

// WeightsSummary says in a line how the run's benchmarks with a weight
// matrix (matvec) held it, "" when none has one: for rotate the range of
// copies and of their total against the L2, for reuse that one copy
// served every launch. Each Result's Weights has the details.
func WeightsSummary(run *Run) string {
	var parts []string
	for _, mode := range weightModes(run) {
		lo, hi, ratio := 0, 0, 0.0
		var l2 int64
		for _, r := range run.Results {
			w := r.Weights
			if w == nil || string(w.Mode) != mode {
				continue
			}
			if lo == 0 || w.Copies < lo {
				lo = w.Copies
			}
			hi = max(hi, w.Copies)
			if w.L2Bytes > 0 {
				q := float64(w.TotalBytes) / float64(w.L2Bytes)
				if l2 == 0 || q < ratio {
					ratio = q
				}
				l2 = w.L2Bytes
			}
		}
		switch {
		case mode != string(backend.WeightsRotate):
			parts = append(parts, mode+": one copy of W, read by every launch (what the L2 holds of it is served from there)")
		default:
			n := strconv.Itoa(lo)
			if hi != lo {
				n = fmt.Sprintf("%d to %d", lo, hi)
			}
			p := fmt.Sprintf("%s: each launch reads the next of %s byte-identical copies of W", mode, n)
			if l2 > 0 {
				p += fmt.Sprintf(", together at least %.1f × the %s L2", ratio, formatBytes(l2))
			}
			parts = append(parts, p+"; GB/s counts one copy per launch")
		}
	}
	return strings.Join(parts, "; ")
}

// cells is a result's figures as the text and markdown tables print them,
// "-" where there is none.
type cells struct {
	sd, p95, p99, gbps, pct, gelems, gflops, ratio string
}

// cellsOf formats r's figures: the spread (marked ! when noisy), p95 and
// p99 where there are enough samples (QuantileMinN), GB/s where the case
// moves data, % of copy where the roofline applies, G elements/s where it
// produces elements, GFLOPS where the family does arithmetic (matvec,
// matmul), and the compression ratio.
func cellsOf(r *Result) cells {
	s := r.Stats
	c := cells{sd: "-", p95: "-", p99: "-", pct: "-", gflops: "-", ratio: "-",
		gbps: fmt.Sprintf("%.2f", s.GBps), gelems: fmt.Sprintf("%.3f", s.ElemsPS/1e9)}
	if s.Mean > 0 && s.N > 1 {
		c.sd = fmt.Sprintf("±%.1f%%", 100*float64(s.StdDev)/float64(s.Mean))
		if s.Noisy() { // stats.go: NoiseCV
			c.sd += "!"
		}
	}
	if s.HasP95() {
		c.p95 = FormatDuration(s.P95)
	}
	if s.HasP99() {
		c.p99 = FormatDuration(s.P99)
	}
	if s.PctCopy > 0 {
		c.pct = fmt.Sprintf("%.1f", s.PctCopy)
	}
	if s.GFLOPS > 0 {
		c.gflops = fmt.Sprintf("%.1f", s.GFLOPS)
	}
	if r.Compression > 0 {
		c.ratio = fmt.Sprintf("%.2fx", r.Compression)
	}
	if r.BytesRead+r.BytesWritten == 0 { // a scenario case that moves no data (allocation)
		c.gbps = "-"
	}
	if r.Elements == 0 {
		c.gelems = "-"
	}
	return c
}
