package profile

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/rocmforge/forge/runtime/abi"
	"github.com/rocmforge/forge/runtime/bench"
	"github.com/rocmforge/forge/runtime/suite"
)

// Row is one profiled kernel in forgebench's report.
type Row struct {
	Identity *Identity `json:"forge,omitempty"` // nil: not a forge kernel
	Kernel
	// Benchmark is the forgebench result whose launches these are, and
	// ForgeBytes its bytes read + written per launch (forge's model of the
	// traffic); ForgeGBps is ForgeBytes ÷ the tool's median duration.
	Benchmark  string  `json:"benchmark,omitempty"`
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
	Rows     []Row      `json:"kernels"`
}

// Assemble maps kernels to forge's launchers and to the run's benchmarks.
// run (forgebench run's JSON, may be nil) gives the target, the device
// and each benchmark's bytes per launch.
func Assemble(plan *Plan, launches int, kernels []Kernel, table []abi.KernelInfo, run *bench.Run) *Report {
	rep := &Report{Tool: plan.Tool, Variant: plan.Variant, Launches: launches}
	for _, s := range plan.Steps {
		rep.Commands = append(rep.Commands, s.Argv)
	}
	if run != nil {
		rep.Device, rep.Target = run.Meta.Device, run.Meta.Target
	}
	ider := NewIdentifier(table, rep.Target)
	for _, k := range kernels {
		row := Row{Kernel: k}
		if id, ok := ider.Identify(k.Name); ok {
			row.Identity = &id
			if r := matchResult(run, id); r != nil {
				row.Benchmark = r.Name
				row.ForgeBytes = r.BytesRead + r.BytesWritten
				if k.MedianNs > 0 {
					row.ForgeGBps = float64(row.ForgeBytes) / k.MedianNs
				}
			}
		}
		row.DRAMGBps = k.DRAMGBps()
		rep.Rows = append(rep.Rows, row)
	}
	// Forge's kernels first, by family, format and symbol; others after.
	sort.SliceStable(rep.Rows, func(i, j int) bool {
		a, b := rep.Rows[i].Identity, rep.Rows[j].Identity
		if (a == nil) != (b == nil) {
			return a != nil
		}
		if a == nil {
			return false
		}
		return a.Family+"\x00"+a.Format+"\x00"+a.Symbol < b.Family+"\x00"+b.Format+"\x00"+b.Symbol
	})
	return rep
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
	for _, row := range rep.Rows {
		if row.Benchmark == "" {
			continue
		}
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
// files (rocprofv3's counters into its trace). It fails when none of the
// outputs is there.
func ParseOutputs(plan *Plan) ([]Kernel, error) {
	var base []Kernel
	var extra [][]Kernel
	have := false
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
		ks, err := ParseFile(o.Kind, f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		switch {
		case o.Kind == KindRocprofStats && have:
			// the trace (per launch) is better; the stats are a fallback
		case o.Kind == KindRocprofCounters:
			extra = append(extra, ks)
		default:
			base, have = ks, true
		}
	}
	if !have {
		var paths []string
		for _, o := range plan.Outputs {
			paths = append(paths, filepath.Join(o.Path, o.Pattern))
		}
		return nil, fmt.Errorf("the tool wrote none of %s", strings.Join(paths, ", "))
	}
	for _, e := range extra {
		base = Merge(base, e)
	}
	return base, nil
}

// ParseFile runs the parser of kind.
func ParseFile(kind Kind, r io.Reader) ([]Kernel, error) {
	switch kind {
	case KindNCU:
		return ParseNCU(r)
	case KindNsysKernSum:
		return ParseNsysKernSum(r)
	case KindRocprofTrace:
		return ParseRocprofTrace(r)
	case KindRocprofStats:
		return ParseRocprofStats(r)
	case KindRocprofCounters:
		return ParseRocprofCounters(r)
	case KindRocprofLegacy:
		return ParseRocprofLegacy(r)
	case KindOmniperf:
		return ParseOmniperf(r)
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

// WriteTable writes the report as forgebench's table: per kernel its forge
// identity, launches, p50, GB/s (the tool's DRAM bytes, and forge's bytes
// model), % of peak DRAM, occupancy and the other counters.
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
	fmt.Fprintln(w, head)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "kernel\tfamily\tformat\ttarget\tlaunches\tp50\tmean\tDRAM GB/s\tforge GB/s\t% peak DRAM\toccupancy %\t")
	var counters []string
	for _, r := range rep.Rows {
		for c := range r.Counters {
			if !slices.Contains(counters, c) && !slices.Contains(summarized, c) {
				counters = append(counters, c)
			}
		}
	}
	sort.Strings(counters)
	for _, r := range rep.Rows {
		name, fam, format, target := shortName(r.Name), "-", "-", "-"
		if id := r.Identity; id != nil {
			name, fam, format = id.Symbol, id.Family, dash(id.Format)
			target = dash(id.Target)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t\n", name, fam, format, target, r.Launches,
			ns(r.MedianNs), ns(r.MeanNs), num(r.DRAMGBps), num(r.ForgeGBps), ptr(r.DRAMPctPeak), ptr(r.Occupancy))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(counters) > 0 {
		fmt.Fprintln(w, "\ncounters (mean per launch):")
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintf(tw, "kernel\t%s\t\n", strings.Join(counters, "\t"))
		for _, r := range rep.Rows {
			name := shortName(r.Name)
			if r.Identity != nil {
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
