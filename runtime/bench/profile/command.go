// Package profile runs forgebench's suites under a vendor profiler (Nsight
// Compute, Nsight Systems, rocprofv3 or legacy rocprof, omniperf /
// rocprof-compute), parses the tool's CSV output into per-kernel records and
// maps each profiled kernel name back to the forge launcher, format, family
// and target it belongs to.
//
// The command builders (Build) are pure: given the tool, its path, the
// forgebench binary and the `forgebench run` arguments, they return the exact
// argv of each step and where each step leaves the CSV that the parsers read.
// Tool flags and file layouts were taken from the vendors' documentation:
//
//   - Nsight Compute CLI (ncu) 2023.3 – 2025.x: --csv, --page raw,
//     --print-units base, --print-kernel-base, --clock-control, --metrics,
//     --target-processes, --log-file; the raw page is one row per launch with
//     a units row under the header, and ==PROF== lines may share the log file.
//   - Nsight Systems (nsys) 2023.4 – 2025.x: `nsys profile -t cuda -o BASE
//     --force-overwrite true`, then `nsys stats --report cuda_gpu_kern_sum
//     --format csv -o BASE`, which writes BASE_cuda_gpu_kern_sum.csv with the
//     columns Time (%), Total Time (ns), Instances, Avg (ns), Med (ns),
//     Min (ns), Max (ns), StdDev (ns), Name.
//   - rocprofv3 (ROCprofiler-SDK, ROCm 6.2 – 7.x): --kernel-trace --stats
//     -d DIR -o NAME --output-format csv [--pmc A,B] -- APP writes
//     NAME_kernel_trace.csv, NAME_kernel_stats.csv and, with --pmc,
//     NAME_counter_collection.csv (one row per dispatch and counter), under DIR
//     (in some versions under a pass_N subdirectory).
//   - legacy rocprof (rocprofiler v1, ROCm ≤ 6.x): --stats --basenames on
//     [-i pmc.txt] -o FILE.csv APP writes FILE.csv (one row per dispatch,
//     BeginNs/EndNs and any pmc columns) and FILE.stats.csv.
//   - omniperf 2.x (ROCm 6.2) / rocprof-compute 3.x (ROCm ≥ 6.3, the same
//     tool renamed): `profile -n NAME -p DIR -- APP` writes pmc_perf.csv (one
//     row per dispatch: Kernel_Name, Start_Timestamp, End_Timestamp and the
//     counters) under DIR (rocprof-compute adds a GPU-model subdirectory);
//     `analyze -p DIR` prints its report, which forgebench keeps as text.
package profile

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Tool names a profiler as forgebench profile's --tool spells it.
type Tool string

const (
	NCU      Tool = "ncu"      // Nsight Compute
	NSYS     Tool = "nsys"     // Nsight Systems
	Rocprof  Tool = "rocprof"  // rocprofv3, else legacy rocprof
	Omniperf Tool = "omniperf" // omniperf, or rocprof-compute
)

// Tools are the supported tools, in --tool's order.
var Tools = []Tool{Rocprof, Omniperf, NCU, NSYS}

// ParseTool checks a --tool value.
func ParseTool(s string) (Tool, error) {
	for _, t := range Tools {
		if string(t) == strings.ToLower(strings.TrimSpace(s)) {
			return t, nil
		}
	}
	names := make([]string, len(Tools))
	for i, t := range Tools {
		names[i] = string(t)
	}
	return "", fmt.Errorf("unknown tool %q; the tools are: %s", s, strings.Join(names, ", "))
}

// DefaultNCUMetrics are the Nsight Compute metrics collected unless
// --metrics replaces them: the duration, DRAM bytes both ways, DRAM
// throughput as a share of peak, achieved occupancy and SM throughput.
var DefaultNCUMetrics = []string{
	"gpu__time_duration.sum",
	"dram__bytes_read.sum",
	"dram__bytes_write.sum",
	"dram__throughput.avg.pct_of_peak_sustained_elapsed",
	"sm__warps_active.avg.pct_of_peak_sustained_active",
	"sm__throughput.avg.pct_of_peak_sustained_elapsed",
}

// Well-known counter names the parsers turn into the record's fields.
const (
	ncuDuration  = "gpu__time_duration.sum"
	ncuDRAMRead  = "dram__bytes_read.sum"
	ncuDRAMWrite = "dram__bytes_write.sum"
	ncuDRAMPct   = "dram__throughput.avg.pct_of_peak_sustained_elapsed"
	ncuOccupancy = "sm__warps_active.avg.pct_of_peak_sustained_active"
	// AMD derived metrics (rocprof, rocprofv3): kilobytes fetched from and
	// written to video memory, and the achieved occupancy where the
	// architecture has it.
	amdFetchKB   = "FETCH_SIZE"
	amdWriteKB   = "WRITE_SIZE"
	amdOccupancy = "OccupancyPercent"
)

// Options are what Build needs.
type Options struct {
	Tool Tool
	// Exe is the tool's executable (a path from Locate, or its bare name for
	// a --dry-run on a machine without it); Variant is the one Locate found:
	// "rocprofv3" or "rocprof" for Rocprof, "omniperf" or "rocprof-compute"
	// for Omniperf ("" means the first).
	Exe, Variant string
	// Forgebench is the forgebench binary the tool runs.
	Forgebench string
	// RunArgs are `forgebench run`'s filters and flags (what follows "--").
	RunArgs []string
	// Launches is how many times each selected kernel is launched (run's
	// --count, with no warm-up).
	Launches int
	// Metrics are the counters to collect: for ncu they are added to
	// DefaultNCUMetrics, or replace them when ReplaceMetrics; for rocprof
	// they are the pmc counters. omniperf chooses its own.
	Metrics        []string
	ReplaceMetrics bool
	// OutDir receives every file the tool writes.
	OutDir string
}

// Step is one command of a profile.
type Step struct {
	Argv []string
	// Stdout, when set, is a file that receives the step's standard output
	// (omniperf analyze's report); otherwise it goes to forgebench's stderr.
	Stdout string `json:",omitempty"`
}

// Plan is the whole profile: the files to write first (legacy rocprof's pmc
// input), the steps in order, the run JSON that forgebench run writes (the
// benchmarks' bytes per launch and the target), and the CSVs to parse.
type Plan struct {
	Tool    Tool
	Variant string
	Files   map[string]string `json:",omitempty"`
	Steps   []Step
	RunJSON string
	// Metrics are the counters asked of the tool (ncu's --metrics,
	// rocprof's --pmc), the ones the report keeps; nil where the tool
	// chooses (omniperf) or gives none (nsys).
	Metrics []string `json:",omitempty"`
	// Outputs are what the parsers read, by kind (see Parse).
	Outputs []Output
}

// Output is a tool file for a parser. Path may be a directory that the
// file is searched under (Pattern: its name's suffix), for tools whose
// directory layout changes between versions.
type Output struct {
	Kind    Kind
	Path    string
	Pattern string `json:",omitempty"`
}

// Kind names a parser.
type Kind string

const (
	KindNCU             Kind = "ncu-raw" // ncu --csv (raw or details page)
	KindNsysKernSum     Kind = "nsys-cuda_gpu_kern_sum"
	KindRocprofTrace    Kind = "rocprofv3-kernel_trace"
	KindRocprofStats    Kind = "rocprof-kernel_stats" // rocprofv3 and legacy rocprof
	KindRocprofCounters Kind = "rocprofv3-counter_collection"
	KindRocprofLegacy   Kind = "rocprof-results" // legacy rocprof's per-dispatch results.csv
	KindOmniperf        Kind = "omniperf-pmc_perf"
)

// reservedRunFlags are the `forgebench run` flags that profile sets itself.
var reservedRunFlags = []string{"count", "warmup", "min-time", "auto", "max-time", "copy-bytes", "json", "csv", "gofmt", "quiet", "q"}

// CheckRunArgs refuses run arguments that profile sets itself.
func CheckRunArgs(args []string) error {
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			continue
		}
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if slices.Contains(reservedRunFlags, name) {
			return fmt.Errorf("forgebench run's --%s is set by profile (--launches N runs --count N --warmup 0 --copy-bytes -1 --quiet --json); leave it out after --", name)
		}
	}
	return nil
}

// RunArgv is the forgebench command the tool runs: each selected kernel
// launched opts.Launches times, no warm-up, no copy roofline (its copy
// kernel would be profiled too), no table, and the run written as JSON.
func RunArgv(opts Options, runJSON string) []string {
	argv := []string{opts.Forgebench, "run"}
	argv = append(argv, opts.RunArgs...)
	return append(argv, "--count", strconv.Itoa(opts.Launches), "--warmup", "0", "--copy-bytes", "-1", "--quiet", "--json", runJSON)
}

// NCUMetrics is the metric list ncu collects for opts.
func NCUMetrics(opts Options) []string {
	var ms []string
	if !opts.ReplaceMetrics || len(opts.Metrics) == 0 {
		ms = append(ms, DefaultNCUMetrics...)
	}
	for _, m := range opts.Metrics {
		if !slices.Contains(ms, m) {
			ms = append(ms, m)
		}
	}
	if !slices.Contains(ms, ncuDuration) {
		ms = append([]string{ncuDuration}, ms...) // every record needs a duration
	}
	return ms
}

// Build returns the plan of a profile. It checks the options but touches
// nothing.
func Build(opts Options) (*Plan, error) {
	switch {
	case opts.Launches < 1:
		return nil, fmt.Errorf("--launches %d: want 1 or more", opts.Launches)
	case opts.OutDir == "":
		return nil, errors.New("no output directory")
	case opts.Forgebench == "":
		return nil, errors.New("no forgebench binary")
	case opts.Exe == "":
		return nil, fmt.Errorf("no %s executable", opts.Tool)
	}
	if err := CheckRunArgs(opts.RunArgs); err != nil {
		return nil, err
	}
	for _, m := range opts.Metrics {
		if m == "" || strings.ContainsAny(m, " ,\t\n") {
			return nil, fmt.Errorf("--metrics: bad counter name %q", m)
		}
	}
	out := opts.OutDir
	runJSON := filepath.Join(out, "run.json")
	app := RunArgv(opts, runJSON)
	p := &Plan{Tool: opts.Tool, Variant: opts.Variant, RunJSON: runJSON}
	switch opts.Tool {
	case NCU:
		// ncu takes the application as its first positional argument; the
		// forgebench path (absolute) ends its options.
		log := filepath.Join(out, "ncu.csv")
		argv := []string{opts.Exe, "--csv", "--page", "raw", "--print-units", "base", "--print-kernel-base", "demangled",
			"--clock-control", "none", "--target-processes", "all",
			"--metrics", strings.Join(NCUMetrics(opts), ","), "--log-file", log}
		p.Steps = []Step{{Argv: append(argv, app...)}}
		p.Outputs = []Output{{Kind: KindNCU, Path: log}}
		p.Metrics = NCUMetrics(opts)
	case NSYS:
		if len(opts.Metrics) > 0 {
			return nil, errors.New("--metrics: nsys traces kernel durations only; use --tool ncu for counters")
		}
		base := filepath.Join(out, "nsys")
		prof := []string{opts.Exe, "profile", "-o", base, "--force-overwrite", "true", "-t", "cuda", "--stats", "false"}
		stats := []string{opts.Exe, "stats", "--report", "cuda_gpu_kern_sum", "--format", "csv", "--force-overwrite", "true",
			"-o", base, base + ".nsys-rep"}
		p.Steps = []Step{{Argv: append(prof, app...)}, {Argv: stats}}
		p.Outputs = []Output{{Kind: KindNsysKernSum, Path: base + "_cuda_gpu_kern_sum.csv"}}
	case Rocprof:
		p.Metrics = slices.Clone(opts.Metrics)
		dir := filepath.Join(out, "rocprof")
		switch opts.Variant {
		case "", "rocprofv3":
			p.Variant = "rocprofv3"
			argv := []string{opts.Exe, "--kernel-trace", "--stats"}
			if len(opts.Metrics) > 0 {
				argv = append(argv, "--pmc", strings.Join(opts.Metrics, ","))
			}
			argv = append(argv, "-d", dir, "-o", "forge", "--output-format", "csv", "--")
			p.Steps = []Step{{Argv: append(argv, app...)}}
			p.Outputs = []Output{
				{Kind: KindRocprofTrace, Path: dir, Pattern: "forge_kernel_trace.csv"},
				{Kind: KindRocprofStats, Path: dir, Pattern: "forge_kernel_stats.csv"},
			}
			if len(opts.Metrics) > 0 {
				p.Outputs = append(p.Outputs, Output{Kind: KindRocprofCounters, Path: dir, Pattern: "forge_counter_collection.csv"})
			}
		case "rocprof":
			results := filepath.Join(dir, "results.csv")
			argv := []string{opts.Exe, "--stats", "--basenames", "on"}
			if len(opts.Metrics) > 0 {
				input := filepath.Join(out, "rocprof-pmc.txt")
				p.Files = map[string]string{input: "pmc : " + strings.Join(opts.Metrics, " ") + "\n"}
				argv = append(argv, "-i", input)
			}
			argv = append(argv, "-o", results)
			p.Steps = []Step{{Argv: append(argv, app...)}}
			p.Outputs = []Output{
				{Kind: KindRocprofLegacy, Path: results},
				{Kind: KindRocprofStats, Path: filepath.Join(dir, "results.stats.csv")},
			}
		default:
			return nil, fmt.Errorf("rocprof: unknown variant %q", opts.Variant)
		}
	case Omniperf:
		if len(opts.Metrics) > 0 {
			return nil, errors.New("--metrics: omniperf collects its own counter set; use --tool rocprof for chosen counters")
		}
		if opts.Variant == "" {
			p.Variant = "omniperf"
		}
		dir := filepath.Join(out, "omniperf")
		prof := []string{opts.Exe, "profile", "-n", "forge", "-p", dir, "--"}
		p.Steps = []Step{
			{Argv: append(prof, app...)},
			{Argv: []string{opts.Exe, "analyze", "-p", dir}, Stdout: filepath.Join(out, "omniperf-analyze.txt")},
		}
		p.Outputs = []Output{{Kind: KindOmniperf, Path: dir, Pattern: "pmc_perf.csv"}}
	default:
		return nil, fmt.Errorf("unknown tool %q", opts.Tool)
	}
	return p, nil
}

// Quote renders argv for a POSIX shell: words of safe characters as they
// are, others in single quotes.
func Quote(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = quoteWord(a)
	}
	return strings.Join(out, " ")
}

func quoteWord(s string) string {
	if s == "" {
		return "''"
	}
	safe := true
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
