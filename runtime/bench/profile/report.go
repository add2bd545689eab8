package profile

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/rocmforge/forge/runtime/bench"
	"github.com/rocmforge/forge/runtime/device/abi"
	"github.com/rocmforge/forge/runtime/suite"
)

// Row is one line of forgebench's report: one benchmark of the run (the
// launches of its kernel that it made) or, where launches cannot be told
// apart by benchmark, one profiled kernel (every launch of that name).
type Row struct {
	Identity *Identity `json:"forge,omitempty"` // nil: not a forge kernel
	Kernel
	// Benchmark is the forgebench result whose launches these are, Shape
	// its shape, and ForgeBytes its bytes read + written per launch
	// (forge's model of the traffic); ForgeGBps is ForgeBytes ÷ the tool's
	// median duration.
	Benchmark  string  `json:"benchmark,omitempty"`
	Shape      []int   `json:"shape,omitempty"`
	ForgeBytes int64   `json:"forge_bytes,omitempty"`
	ForgeGBps  float64 `json:"forge_gbps,omitempty"`
	DRAMGBps   float64 `json:"dram_gbps,omitempty"` // the tool's DRAM bytes ÷ median
}

// Report is a parsed profile.
type Report struct {
	Tool     Tool       `json:"tool"`
	Variant  string     `json:"variant,omitempty"`
	Device   string     `json:"device,omitempty"`
	Target   string     `json:"target,omitempty"`
	Launches int        `json:"launches_per_benchmark"`
	Commands [][]string `json:"commands"`
	// Metrics are the counters asked of the tool (ncu's --metrics,
	// rocprof's --pmc); the rows carry only these. Empty: the tool's own set.
	Metrics []string `json:"metrics,omitempty"`
	// Grouping is "benchmark" when the launches of every forge kernel that
	// a benchmark ran were split among the run's benchmarks (kernels no
	// benchmark ran follow, one row per kernel), "kernel" when every row is
	// a kernel (a summary tool such as nsys, no run JSON, or no launch count
	// lined up), "mixed" otherwise; Notes say why a kernel was not split.
	Grouping string   `json:"grouping"`
	Notes    []string `json:"notes,omitempty"`
	Rows     []Row    `json:"kernels"`
}

// Assemble maps kernels to forge's launchers and to the run's benchmarks.
// run (forgebench run's JSON, may be nil) gives the target, the device,
// the benchmarks in the order they ran and each one's launches, shape and
// bytes per launch.
//
// Where the tool reports every launch in order (ncu, rocprofv3's trace,
// legacy rocprof, omniperf), the launches are split by benchmark:
// forgebench runs its benchmarks in order, each launching its kernel
// exactly as many times as it has samples (--count N --warmup 0, no copy
// roofline), so the k-th run of N consecutive launches of a forge launcher
// belongs to the k-th result of the run whose kernel and format are that
// launcher's; kernels no result launches (a runtime's fills and copies)
// are left out of the split and reported per kernel. A launcher whose
// launches do not add up to its results' samples is reported per kernel
// name, with a note. Summary tools (nsys's cuda_gpu_kern_sum, the
// kernel_stats files) have no launches: their rows are kernels, one per
// name (a launcher's template instantiations apart).
func Assemble(plan *Plan, launches int, parsed *Parsed, table []abi.KernelInfo, run *bench.Run) *Report {
	rep := &Report{Tool: plan.Tool, Variant: plan.Variant, Launches: launches, Metrics: plan.Metrics}
	for _, s := range plan.Steps {
		rep.Commands = append(rep.Commands, s.Argv)
	}
	if run != nil {
		rep.Device, rep.Target = run.Meta.Device, run.Meta.Target
	}
	ider := NewIdentifier(table, rep.Target)
	var split []Row
	splitSym := map[string]bool{}
	switch {
	case run == nil:
		rep.Notes = append(rep.Notes, "no run JSON: one row per kernel")
	case parsed.Launches == nil:
		rep.Notes = append(rep.Notes, fmt.Sprintf("%s reports a summary per kernel, not launches: one row per kernel name", plan.Tool))
	default:
		split, splitSym, rep.Notes = splitByBenchmark(parsed.Launches, parsed.Units, ider, run)
	}
	var rest []Row
	for _, k := range parsed.Kernels {
		id, ok := ider.Identify(k.Name)
		if ok && splitSym[id.Symbol] {
			continue
		}
		row := Row{Kernel: k}
		if ok {
			row.Identity = &id
			if r := matchResult(run, id); r != nil {
				row.Benchmark, row.Shape = r.Name, r.Shape
				row.ForgeBytes = r.BytesRead + r.BytesWritten
				if k.MedianNs > 0 {
					row.ForgeGBps = float64(row.ForgeBytes) / k.MedianNs
				}
			}
		}
		row.DRAMGBps = k.DRAMGBps()
		rest = append(rest, row)
	}
	// The benchmarks in run order; then forge's other kernels, by family,
	// format and symbol; others last.
	sort.SliceStable(rest, func(i, j int) bool {
		a, b := rest[i].Identity, rest[j].Identity
		if (a == nil) != (b == nil) {
			return a != nil
		}
		if a == nil {
			return false
		}
		return a.Family+"\x00"+a.Format+"\x00"+a.Symbol < b.Family+"\x00"+b.Format+"\x00"+b.Symbol
	})
	rep.Rows = append(split, rest...)
	switch {
	case len(split) > 0 && len(rep.Notes) > 0:
		rep.Grouping = "mixed"
	case len(split) > 0:
		rep.Grouping = "benchmark"
	default:
		rep.Grouping = "kernel"
	}
	return rep
}

// samples is how many times a result launched its kernel.
func samples(r *bench.Result) int {
	if len(r.Samples) > 0 {
		return len(r.Samples)
	}
	return r.Stats.N
}

// splitByBenchmark makes a row per benchmark of run from the launches (in
// launch order); see Assemble. split reports the launchers whose launches
// were split.
func splitByBenchmark(ls []Launch, units map[string]string, ider *Identifier, run *bench.Run) (rows []Row, split map[string]bool, notes []string) {
	split = map[string]bool{}
	type launcher struct {
		id       Identity
		launches []Launch
	}
	bySym := map[string]*launcher{}
	var syms []string
	known := map[string]*Identity{}
	for _, l := range ls {
		idp, seen := known[l.Name]
		if !seen {
			if id, ok := ider.Identify(l.Name); ok {
				idp = &id
			}
			known[l.Name] = idp
		}
		if idp == nil {
			continue
		}
		g := bySym[idp.Symbol]
		if g == nil {
			g = &launcher{id: *idp}
			bySym[idp.Symbol] = g
			syms = append(syms, idp.Symbol)
		}
		g.launches = append(g.launches, l)
	}
	// The results of each launcher, in run order.
	type chunk struct {
		result *bench.Result
		ls     []Launch
		id     Identity
	}
	var chunks []chunk
	for _, sym := range syms {
		g := bySym[sym]
		var rs []*bench.Result
		want := 0
		for i := range run.Results {
			r := &run.Results[i]
			if n := samples(r); n > 0 && r.Kernel == g.id.Kernel && strings.EqualFold(r.Format, g.id.Format) {
				rs = append(rs, r)
				want += n
			}
		}
		if len(rs) == 0 {
			continue
		}
		if want != len(g.launches) {
			names := make([]string, len(rs))
			for i, r := range rs {
				names[i] = fmt.Sprintf("%s ×%d", r.Name, samples(r))
			}
			notes = append(notes, fmt.Sprintf("%s: %d launches profiled, %d expected (%s): not split by benchmark, one row per kernel name",
				sym, len(g.launches), want, strings.Join(names, ", ")))
			continue
		}
		split[sym] = true
		at := 0
		for _, r := range rs {
			n := samples(r)
			chunks = append(chunks, chunk{result: r, ls: g.launches[at : at+n], id: g.id})
			at += n
		}
	}
	// Rows in run order.
	pos := map[*bench.Result]int{}
	for i := range run.Results {
		pos[&run.Results[i]] = i
	}
	sort.SliceStable(chunks, func(i, j int) bool { return pos[chunks[i].result] < pos[chunks[j].result] })
	for _, c := range chunks {
		k := Aggregate(c.ls[0].Name, c.ls, units)
		id := c.id
		row := Row{Identity: &id, Kernel: k, Benchmark: c.result.Name, Shape: c.result.Shape,
			ForgeBytes: c.result.BytesRead + c.result.BytesWritten, DRAMGBps: k.DRAMGBps()}
		if k.MedianNs > 0 {
			row.ForgeGBps = float64(row.ForgeBytes) / k.MedianNs
		}
		rows = append(rows, row)
	}
	return rows, split, notes
}

// matchResult is the one benchmark of run that launches id's kernel; nil
// when none or when several with different traffic do.
func matchResult(run *bench.Run, id Identity) *bench.Result {
	if run == nil {
		return nil
	}
	var found *bench.Result
	for i := range run.Results {
		r := &run.Results[i]
		if r.Kernel != id.Kernel || !strings.EqualFold(r.Format, id.Format) || r.Stats.N == 0 {
			continue
		}
		if found != nil && found.BytesRead+found.BytesWritten != r.BytesRead+r.BytesWritten {
			return nil
		}
		if found == nil {
			found = r
		}
	}
	return found
}

// Fold adds each row's profile to its benchmark in run as metrics
// (profiler_p50 in s, dram_gbps and forge_gbps in B/s, dram_pct_peak and
// occupancy in %, and every counter), so that forgebench report shows the
// profile beside the run's own timings.
func Fold(run *bench.Run, rep *Report) {
	done := map[string]bool{} // a benchmark is folded once (from its first row)
	for _, row := range rep.Rows {
		if row.Benchmark == "" || done[row.Benchmark] {
			continue
		}
		done[row.Benchmark] = true
		i := slices.IndexFunc(run.Results, func(r bench.Result) bool { return r.Name == row.Benchmark })
		if i < 0 {
			continue
		}
		r := &run.Results[i]
		add := func(name string, v float64, unit string) {
			r.Metrics = append(r.Metrics, suite.Metric{Name: name, Value: v, Unit: unit})
		}
		add(string(rep.Tool)+"_launches", float64(row.Launches), "")
		add(string(rep.Tool)+"_p50", row.MedianNs/1e9, "s")
		if row.ForgeGBps > 0 {
			add("forge_bytes_per_s", row.ForgeGBps*1e9, "B/s")
		}
		if row.DRAMGBps > 0 {
			add("dram_bytes_per_s", row.DRAMGBps*1e9, "B/s")
		}
		if row.DRAMPctPeak != nil {
			add("dram_pct_peak", *row.DRAMPctPeak, "%")
		}
		if row.Occupancy != nil {
			add("occupancy", *row.Occupancy, "%")
		}
	}
}

// ReadRunJSON reads forgebench run's JSON if it is there.
func ReadRunJSON(path string) (*bench.Run, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, nil
	}
	return bench.ReadRun(path)
}

// ParseOutputs parses every output of plan that exists, merging a tool's
// files (rocprofv3's counters into its trace, launch by launch), and keeps
// of the counters only plan.Metrics where it names them. It fails when
// none of the outputs is there.
func ParseOutputs(plan *Plan) (*Parsed, error) {
	var base *Parsed
	var extra []*Parsed
	for _, o := range plan.Outputs {
		path := o.Path
		if o.Pattern != "" {
			p, err := findFile(o.Path, o.Pattern)
			if err != nil {
				continue
			}
			path = p
		}
		f, err := os.Open(path)
		if err != nil {
			continue
		}
		p, err := ParseLaunches(o.Kind, f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		switch {
		case o.Kind == KindRocprofStats && base != nil:
			// the trace (per launch) is better; the stats are a fallback
		case o.Kind == KindRocprofCounters:
			extra = append(extra, p)
		default:
			base = p
		}
	}
	if base == nil {
		var paths []string
		for _, o := range plan.Outputs {
			paths = append(paths, filepath.Join(o.Path, o.Pattern))
		}
		return nil, fmt.Errorf("the tool wrote none of %s", strings.Join(paths, ", "))
	}
	for _, e := range extra {
		if base.Launches != nil && MergeLaunches(base.Launches, e.Launches) {
			base.Kernels = collect(base.Launches, base.Units)
			continue
		}
		// No dispatch IDs to pair them by: by kernel name, and the
		// launches (their counters incomplete) are no longer used.
		base.Kernels = Merge(base.Kernels, e.Kernels)
		base.Launches = nil
	}
	RestrictCounters(base, plan.Metrics)
	return base, nil
}

// ParseFile runs the parser of kind.
func ParseFile(kind Kind, r io.Reader) ([]Kernel, error) {
	return kernelsOf(ParseLaunches(kind, r))
}

// ParseLaunches runs the parser of kind, keeping the launches where the
// file has a row per launch.
func ParseLaunches(kind Kind, r io.Reader) (*Parsed, error) {
	summary := func(ks []Kernel, err error) (*Parsed, error) {
		if err != nil {
			return nil, err
		}
		return &Parsed{Kernels: ks}, nil
	}
	switch kind {
	case KindNCU:
		return ParseNCULaunches(r)
	case KindNsysKernSum:
		return summary(ParseNsysKernSum(r))
	case KindRocprofTrace:
		return parseRocprofTrace(r)
	case KindRocprofStats:
		return summary(ParseRocprofStats(r))
	case KindRocprofCounters:
		return parseRocprofCounters(r)
	case KindRocprofLegacy:
		return parseRocprofLegacy(r)
	case KindOmniperf:
		return parseOmniperf(r)
	}
	return nil, fmt.Errorf("no parser for %q", kind)
}

// findFile is the newest file under dir whose name ends in suffix.
func findFile(dir, suffix string) (string, error) {
	var best string
	var bestT time.Time
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(d.Name(), suffix) {
			return nil
		}
		if fi, err := d.Info(); err == nil && (best == "" || fi.ModTime().After(bestT)) {
			best, bestT = p, fi.ModTime()
		}
		return nil
	})
	if err == nil && best == "" {
		err = fmt.Errorf("no *%s under %s", suffix, dir)
	}
	return best, err
}

// WriteTable writes the report as forgebench's table: per benchmark (or
// kernel, see Report.Grouping) its forge launcher, shape, launches, p50,
// GB/s (the tool's DRAM bytes, and forge's bytes model), % of peak DRAM and
// occupancy; then the requested counters' means per launch.
func WriteTable(w io.Writer, rep *Report) error {
	head := fmt.Sprintf("profile: %s", rep.Tool)
	if rep.Variant != "" && rep.Variant != string(rep.Tool) {
		head += " (" + rep.Variant + ")"
	}
	if rep.Device != "" {
		head += ", " + rep.Device
	}
	if rep.Target != "" {
		head += ", target " + rep.Target
	}
	head += ", one row per " + map[string]string{"benchmark": "benchmark", "kernel": "kernel", "mixed": "benchmark (per kernel where noted)"}[rep.Grouping]
	fmt.Fprintln(w, head)
	for _, n := range rep.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "benchmark\tshape\tkernel\tformat\tlaunches\tp50\tmean\tDRAM GB/s\tforge GB/s\t% peak DRAM\toccupancy %\t")
	for _, r := range rep.Rows {
		name, format := shortName(r.Name), "-"
		if id := r.Identity; id != nil {
			name, format = id.Symbol, dash(id.Format)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t\n", dash(r.Benchmark), shape(r.Shape), name, format, r.Launches,
			ns(r.MedianNs), ns(r.MeanNs), num(r.DRAMGBps), num(r.ForgeGBps), ptr(r.DRAMPctPeak), ptr(r.Occupancy))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	// The counters asked for, in the order asked; without a list (omniperf's
	// own set), every counter but those the table above shows.
	var counters []string
	if len(rep.Metrics) > 0 {
		for _, m := range rep.Metrics {
			if slices.ContainsFunc(rep.Rows, func(r Row) bool { _, ok := r.Counters[m]; return ok }) {
				counters = append(counters, m)
			}
		}
	} else {
		for _, r := range rep.Rows {
			for c := range r.Counters {
				if !slices.Contains(counters, c) && !slices.Contains(summarized, c) {
					counters = append(counters, c)
				}
			}
		}
		sort.Strings(counters)
	}
	if len(counters) > 0 {
		fmt.Fprintln(w, "\ncounters (mean per launch):")
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		label := "kernel"
		if rep.Grouping != "kernel" {
			label = "benchmark"
		}
		fmt.Fprintf(tw, "%s\t%s\t\n", label, strings.Join(counters, "\t"))
		for _, r := range rep.Rows {
			name := shortName(r.Name)
			switch {
			case rep.Grouping != "kernel" && r.Benchmark != "":
				name = r.Benchmark
			case r.Identity != nil:
				name = r.Identity.Symbol
			}
			cells := []string{name}
			for _, c := range counters {
				if v, ok := r.Counters[c]; ok {
					cell := num(v)
					if v == 0 {
						cell = "0"
					}
					cells = append(cells, cell+unitSuffix(r.Units[c]))
				} else {
					cells = append(cells, "-")
				}
			}
			fmt.Fprintf(tw, "%s\t\n", strings.Join(cells, "\t"))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}

// shape renders a result's shape as "4096x14336".
func shape(s []int) string {
	if len(s) == 0 {
		return "-"
	}
	parts := make([]string, len(s))
	for i, d := range s {
		parts[i] = strconv.Itoa(d)
	}
	return strings.Join(parts, "x")
}

// summarized are counters the main table already shows.
var summarized = []string{ncuDuration, ncuDRAMPct, ncuOccupancy}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func ns(v float64) string {
	if v <= 0 {
		return "-"
	}
	return bench.FormatDuration(time.Duration(v + 0.5))
}

func num(v float64) string {
	if v == 0 {
		return "-"
	}
	switch a := max(v, -v); {
	case a >= 1e6:
		return fmt.Sprintf("%.4g", v)
	case a >= 100:
		return fmt.Sprintf("%.0f", v)
	default:
		return fmt.Sprintf("%.3g", v)
	}
}

func ptr(p *float64) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprintf("%.1f", *p)
}

func unitSuffix(u string) string {
	if u == "" || u == "%" {
		return u
	}
	return " " + u
}

// shortName drops a demangled name's return type and parameters.
func shortName(n string) string {
	n = strings.TrimPrefix(n, "void ")
	if i := strings.IndexAny(n, "(<"); i > 0 {
		n = n[:i]
	}
	if len(n) > 60 {
		n = n[:57] + "..."
	}
	return n
}

// WriteJSON writes the report as indented JSON.
func WriteJSON(w io.Writer, rep *Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}
