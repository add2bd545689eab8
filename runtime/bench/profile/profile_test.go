package profile

import (
	"bufio"
	"errors"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/rocmforge/forge/generated/kernels"
	"github.com/rocmforge/forge/runtime/bench"
)

func opts(tool Tool) Options {
	return Options{Tool: tool, Exe: string(tool), Forgebench: "/fb", RunArgs: []string{"--backend", "cuda", "--family", "dequant"}, Launches: 5, OutDir: "/o"}
}

var runTail = []string{"/fb", "run", "--backend", "cuda", "--family", "dequant", "--count", "5", "--warmup", "0", "--copy-bytes", "-1", "--quiet", "--json", "/o/run.json"}

func TestBuildArgv(t *testing.T) {
	withMetrics := func(o Options, ms ...string) Options { o.Metrics = ms; return o }
	legacy := opts(Rocprof)
	legacy.Variant = "rocprof"
	legacy.Metrics = []string{"FETCH_SIZE", "WRITE_SIZE"}
	replace := withMetrics(opts(NCU), "dram__bytes_read.sum")
	replace.ReplaceMetrics = true
	cat := func(a []string, b ...string) []string { return append(append([]string{}, a...), b...) }
	ncuHead := []string{"ncu", "--csv", "--page", "raw", "--print-units", "base", "--print-kernel-base", "demangled", "--clock-control", "none", "--target-processes", "all", "--metrics"}
	tests := []struct {
		name  string
		opts  Options
		steps [][]string
		files map[string]string
	}{
		{"ncu", opts(NCU), [][]string{cat(cat(ncuHead, strings.Join(DefaultNCUMetrics, ","), "--log-file", "/o/ncu.csv"), runTail...)}, nil},
		{"ncu+metrics", withMetrics(opts(NCU), "l1tex__t_bytes.sum"), [][]string{cat(cat(ncuHead, strings.Join(DefaultNCUMetrics, ",")+",l1tex__t_bytes.sum", "--log-file", "/o/ncu.csv"), runTail...)}, nil},
		{"ncu replace", replace, [][]string{cat(cat(ncuHead, "gpu__time_duration.sum,dram__bytes_read.sum", "--log-file", "/o/ncu.csv"), runTail...)}, nil},
		{"nsys", opts(NSYS), [][]string{
			cat([]string{"nsys", "profile", "-o", "/o/nsys", "--force-overwrite", "true", "-t", "cuda", "--stats", "false"}, runTail...),
			{"nsys", "stats", "--report", "cuda_gpu_kern_sum", "--format", "csv", "--force-overwrite", "true", "-o", "/o/nsys", "/o/nsys.nsys-rep"},
		}, nil},
		{"rocprofv3", withMetrics(opts(Rocprof), "FETCH_SIZE", "WRITE_SIZE"), [][]string{
			cat([]string{"rocprof", "--kernel-trace", "--stats", "--pmc", "FETCH_SIZE,WRITE_SIZE", "-d", "/o/rocprof", "-o", "forge", "--output-format", "csv", "--"}, runTail...),
		}, nil},
		{"rocprof legacy", legacy, [][]string{
			cat([]string{"rocprof", "--stats", "--basenames", "on", "-i", "/o/rocprof-pmc.txt", "-o", "/o/rocprof/results.csv"}, runTail...),
		}, map[string]string{"/o/rocprof-pmc.txt": "pmc : FETCH_SIZE WRITE_SIZE\n"}},
		{"omniperf", opts(Omniperf), [][]string{
			cat([]string{"omniperf", "profile", "-n", "forge", "-p", "/o/omniperf", "--"}, runTail...),
			{"omniperf", "analyze", "-p", "/o/omniperf"},
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Build(tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			var got [][]string
			for _, s := range p.Steps {
				got = append(got, s.Argv)
			}
			if d := cmp.Diff(tt.steps, got); d != "" {
				t.Errorf("argv (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.files, p.Files); d != "" {
				t.Errorf("files (-want +got):\n%s", d)
			}
			if p.RunJSON != "/o/run.json" || len(p.Outputs) == 0 {
				t.Errorf("run json %q, outputs %v", p.RunJSON, p.Outputs)
			}
		})
	}
}

func TestBuildRefuses(t *testing.T) {
	bad := func(mod func(*Options)) Options { o := opts(NCU); mod(&o); return o }
	for name, o := range map[string]Options{
		"reserved count":  bad(func(o *Options) { o.RunArgs = []string{"--count", "3"} }),
		"reserved json":   bad(func(o *Options) { o.RunArgs = []string{"--json=x"} }),
		"zero launches":   bad(func(o *Options) { o.Launches = 0 }),
		"bad metric":      bad(func(o *Options) { o.Metrics = []string{"a b"} }),
		"nsys metrics":    bad(func(o *Options) { o.Tool = NSYS; o.Metrics = []string{"x"} }),
		"omniperf metric": bad(func(o *Options) { o.Tool = Omniperf; o.Metrics = []string{"x"} }),
	} {
		if _, err := Build(o); err == nil {
			t.Errorf("%s: Build accepted %+v", name, o)
		}
	}
}

func TestQuote(t *testing.T) {
	got := Quote([]string{"ncu", "--metrics", "a.sum,b", "-- x", "it's", ""})
	if want := `ncu --metrics a.sum,b '-- x' 'it'\''s' ''`; got != want {
		t.Errorf("Quote = %s, want %s", got, want)
	}
}

func TestLocate(t *testing.T) {
	none := Finder{LookPath: func(string) (string, error) { return "", errors.New("no") }, IsExec: func(string) bool { return false }}
	for _, tool := range Tools {
		_, _, err := none.Locate(tool)
		var me *MissingError
		if !errors.As(err, &me) {
			t.Fatalf("%s: err %v, want a MissingError", tool, err)
		}
		want := map[Tool]string{NCU: "Nsight Compute", NSYS: "Nsight Systems", Rocprof: "rocprofiler-sdk", Omniperf: "rocprofiler-compute"}[tool]
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v does not name %s", tool, err, want)
		}
	}
	// Install locations after $PATH; rocprofv3 before legacy rocprof.
	f := Finder{LookPath: none.LookPath, IsExec: func(p string) bool { return p == "/usr/local/cuda/bin/ncu" || p == "/opt/rocm/bin/rocprof" }}
	if p, v, err := f.Locate(NCU); p != "/usr/local/cuda/bin/ncu" || v != "ncu" || err != nil {
		t.Errorf("ncu: %s %s %v", p, v, err)
	}
	if p, v, err := f.Locate(Rocprof); p != "/opt/rocm/bin/rocprof" || v != "rocprof" || err != nil {
		t.Errorf("rocprof: %s %s %v", p, v, err)
	}
	f.LookPath = func(n string) (string, error) {
		if n == "rocprofv3" {
			return "/x/rocprofv3", nil
		}
		return "", errors.New("no")
	}
	if p, v, _ := f.Locate(Rocprof); p != "/x/rocprofv3" || v != "rocprofv3" {
		t.Errorf("rocprofv3: %s %s", p, v)
	}
}

func parseFixture(t *testing.T, kind Kind, name string) []Kernel {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ks, err := ParseFile(kind, f)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return ks
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

func TestParseNCURaw(t *testing.T) {
	ks := parseFixture(t, KindNCU, "synthetic_ncu_raw.csv")
	if len(ks) != 4 {
		t.Fatalf("%d kernels, want 4: %+v", len(ks), ks)
	}
	dq := ks[0]
	if dq.Launches != 3 || dq.MedianNs != 102400 || !near(dq.MeanNs, (102400+103424+101376)/3.0) || dq.TotalNs != 307200 {
		t.Errorf("dequant: %+v", dq)
	}
	if dq.DRAMBytes != 37748736+268435456 || dq.DRAMPctPeak == nil || !near(*dq.DRAMPctPeak, (88.41+87.90+88.02)/3) || dq.Occupancy == nil {
		t.Errorf("dequant counters: %+v", dq)
	}
	if !near(dq.DRAMGBps(), (37748736+268435456)/102400.0) {
		t.Errorf("GB/s %v", dq.DRAMGBps())
	}
	if mv := ks[1]; mv.Launches != 2 || mv.MedianNs != (3072+3040)/2.0 { // "3,040": thousands separator
		t.Errorf("matvec: %+v", mv)
	}
	if fill := ks[3]; fill.Occupancy != nil || fill.Units["gpu__time_duration.sum"] != "ns" { // n/a is no value
		t.Errorf("fill: %+v", fill)
	}
}

func TestParseNCUDetails(t *testing.T) {
	ks := parseFixture(t, KindNCU, "synthetic_ncu_details.csv")
	if len(ks) != 1 {
		t.Fatalf("%+v", ks)
	}
	k := ks[0]
	if k.Launches != 2 || !near(k.MedianNs, 111500) || !near(k.DRAMBytes, 339.74e6) || k.Occupancy == nil || !near(*k.Occupancy, 83.4) {
		t.Errorf("%+v", k)
	}
}

func TestParseNsys(t *testing.T) {
	ks := parseFixture(t, KindNsysKernSum, "synthetic_nsys_cuda_gpu_kern_sum.csv")
	if len(ks) != 3 || ks[0].Launches != 10 || ks[0].MedianNs != 102272 || ks[0].MeanNs != 102400 || ks[0].TotalNs != 1024000 || ks[0].MinNs != 101376 {
		t.Errorf("%+v", ks)
	}
	// --timeunit us
	ks, err := ParseNsysKernSum(strings.NewReader("Time (%),Total Time (us),Instances,Avg (us),Med (us),Min (us),Max (us),StdDev (us),Name\n100,10.5,2,5.25,5.25,5,5.5,0.3,k\n"))
	if err != nil || ks[0].MedianNs != 5250 || ks[0].TotalNs != 10500 {
		t.Errorf("%+v %v", ks, err)
	}
}

func TestParseRocprof(t *testing.T) {
	tr := parseFixture(t, KindRocprofTrace, "synthetic_rocprofv3_kernel_trace.csv")
	if len(tr) != 3 || tr[1].Launches != 3 || tr[1].MedianNs != 41000 || tr[1].MinNs != 40000 {
		t.Errorf("trace: %+v", tr)
	}
	st := parseFixture(t, KindRocprofStats, "synthetic_rocprofv3_kernel_stats.csv")
	if len(st) != 3 || st[1].Launches != 3 || st[1].MeanNs != 41000 || st[1].MedianNs != 41000 || st[1].MaxNs != 42000 {
		t.Errorf("stats: %+v", st)
	}
	cc := parseFixture(t, KindRocprofCounters, "synthetic_rocprofv3_counter_collection.csv")
	if len(cc) != 1 || cc[0].Launches != 2 || cc[0].Counters["FETCH_SIZE"] != 36880 || cc[0].DRAMBytes != (36880+16)*1024 {
		t.Errorf("counters: %+v", cc)
	}
	m := Merge(tr, cc)
	if m[1].DRAMBytes != (36880+16)*1024 || m[0].DRAMBytes != 0 {
		t.Errorf("merged: %+v", m)
	}
	lg := parseFixture(t, KindRocprofLegacy, "synthetic_rocprof_results.csv")
	if len(lg) != 1 || lg[0].Launches != 2 || lg[0].MedianNs != 104000 || lg[0].DRAMBytes != (36864+262144)*1024 {
		t.Errorf("legacy: %+v", lg)
	}
	op := parseFixture(t, KindOmniperf, "synthetic_omniperf_pmc_perf.csv")
	if len(op) != 1 || op[0].Launches != 2 || op[0].MedianNs != 33500 || op[0].Counters["SQ_WAVES"] != 2112 || len(op[0].Counters) != 3 {
		t.Errorf("omniperf: %+v", op)
	}
}

// TestRecorded parses every real recording under testdata (ncu_*.csv,
// nsys_*.csv: captured by scripts/gpu-profile.sh) and checks that forge's
// kernels in it are recognised.
func TestRecorded(t *testing.T) {
	for pattern, kind := range map[string]Kind{"ncu_*.csv": KindNCU, "nsys_*.csv": KindNsysKernSum, "rocprofv3_*kernel_trace.csv": KindRocprofTrace} {
		files, _ := filepath.Glob(filepath.Join("testdata", pattern))
		for _, f := range files {
			t.Run(filepath.Base(f), func(t *testing.T) {
				ks := parseFixture(t, kind, filepath.Base(f))
				if len(ks) == 0 {
					t.Fatal("no kernels")
				}
				id := NewIdentifier(kernels.Kernels, "")
				forge := 0
				for _, k := range ks {
					if k.Launches < 1 || k.MedianNs <= 0 {
						t.Errorf("%s: %+v", k.Name, k)
					}
					if _, ok := id.Identify(k.Name); ok {
						forge++
					} else if strings.Contains(k.Name, "forge_") {
						t.Errorf("forge kernel not mapped: %s", k.Name)
					}
				}
				if forge == 0 {
					t.Error("no forge kernel recognised")
				}
				t.Logf("%d kernels, %d forge's", len(ks), forge)
			})
		}
	}
}

func TestIdentifyExamples(t *testing.T) {
	id := NewIdentifier(kernels.Kernels, "sm_90")
	for name, want := range map[string]string{
		"void forge_matvec_f32_q4_k_kernel<256u, 4u, 8u, true, unsigned int>(const forge_BlockQ4_K *, const float *, float *, long, long)": "forge_matvec_f32_q4_k",
		"_Z28forge_matvec_f32_q4_k_kernelILj256ELj4ELj8ELb1EjEvPK15forge_BlockQ4_KPKfPfll":                                                 "forge_matvec_f32_q4_k",
		"forge_dequant_f32_q4_0_kernel": "forge_dequant_f32_q4_0",
		"void forge_matmul_f32_q8_0_kernel_wmma<128u, 64u, 64u, 32u, 2u>(const forge_BlockQ8_0 *, const float *, float *, long, long, long)": "forge_matmul_f32_q8_0",
		"void forge_attn_wmma<(unsigned int)128, (unsigned int)4, (unsigned int)64>(const unsigned short *, ...)":                            "forge_attention_f16_d128",
		"void forge_attn_generic<float, 64u, 128u, 16u, 32u>(const float *, ...)":                                                            "forge_attention_f32_d64",
		"_Z18forge_attn_genericItLj64ELj128ELj16ELj32EEvPKT_S2_S2_PS0_lllllfi":                                                               "forge_attention_f16_d64",
		"forge_copy_kernel(const unsigned char *, unsigned char *, forge_copy_plan)":                                                         "forge_copy",
		"forge_dequant_f32_q4_k_kernel<true, unsigned int>(forge_BlockQ4_K const*, float*, long) [clone .kd]":                                "forge_dequant_f32_q4_k",
	} {
		got, ok := id.Identify(name)
		if !ok || got.Symbol != want || got.Target != "sm_90" {
			t.Errorf("Identify(%s) = %+v, %v; want %s", name, got, ok, want)
		}
	}
	for _, name := range []string{
		"void fill_kernel<float>(float *, unsigned long)",
		"__amd_rocclr_fillBufferAligned",
		"my_forge_dequant_f32_q4_0_kernel",
		"void forge_dequant_f32_q4_0_kernel<true, unsigned int>(const forge_BlockQ4_K *, float *, long)", // wrong block type
	} {
		if got, ok := id.Identify(name); ok {
			t.Errorf("Identify(%s) = %+v, want no forge kernel", name, got)
		}
	}
}

// hipccKernelsEnv names a list of kernel symbols that hipcc has just
// compiled from generated/hip/gfx1100 (CI's hipcc step writes one); with
// it, TestIdentifyHipccNames reads that list instead of the recording and
// requires every launcher in it.
const hipccKernelsEnv = "FORGE_HIPCC_KERNELS"

// TestIdentifyHipccNames maps every kernel that hipcc (5.2, clang 15)
// compiled from generated/hip/gfx1100: their mangled names, recorded in
// testdata/hipcc_gfx1100_kernels.txt (the .globl symbols of the device
// assembly; scripts/hipcc-kernel-names.sh rewrites it). Every recorded name
// must map to a launcher, and every launcher whose format and kernel both
// occur in the recording must be reached. Launchers of formats or kernels
// added since it was made are only logged: TestIdentifyGeneratedLaunches maps
// them from the generated HIP on every target, and CI, which has hipcc,
// compiles them afresh and runs this test on that list ($FORGE_HIPCC_KERNELS),
// where every launcher is required.
func TestIdentifyHipccNames(t *testing.T) {
	path, fresh := os.Getenv(hipccKernelsEnv), true
	if path == "" {
		path, fresh = filepath.Join("testdata", "hipcc_gfx1100_kernels.txt"), false
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	id := NewIdentifier(kernels.Kernels, "gfx1100")
	seen := map[string]bool{}
	// A recording covers the formats and the kernels (dequant_f32, glue, …)
	// it has names of; a launcher of both was compiled when it was made.
	formats, kinds := map[string]bool{}, map[string]bool{}
	kind := func(kernel, family string) string {
		if kernel != "" {
			return kernel
		}
		return family
	}
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		name := strings.TrimSpace(sc.Text())
		if name == "" {
			continue
		}
		n++
		got, ok := id.Identify(name)
		if !ok {
			t.Errorf("%s: not mapped: %s", path, name)
			continue
		}
		want := got.Symbol
		if got.Family == "glue" { // forge_glue_rmsnorm_f32 launches forge_glue_rmsnorm_kernel
			want = strings.TrimSuffix(strings.TrimSuffix(want, "_f32"), "_f16")
		}
		if got.Family != "attention" && got.Family != "copy" && !strings.Contains(name, want+"_kernel") {
			t.Errorf("%s mapped to %s", name, got.Symbol)
		}
		seen[got.Symbol] = true
		formats[got.Format] = true
		kinds[kind(got.Kernel, got.Family)] = true
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatalf("%s: no kernel names", path)
	}
	var newer []string
	for _, k := range kernels.Kernels {
		if seen[k.Symbol] {
			continue
		}
		if !fresh && (!formats[k.Format] || !kinds[kind(k.Kernel, k.Family)]) {
			newer = append(newer, k.Symbol)
			continue
		}
		t.Errorf("no compiled gfx1100 kernel in %s maps to launcher %s", path, k.Symbol)
	}
	if len(newer) > 0 {
		t.Logf("%d launchers of formats or kernels newer than %s (scripts/hipcc-kernel-names.sh records them): %s",
			len(newer), path, strings.Join(newer, ", "))
	}
	t.Logf("%d mangled names, %d launchers", n, len(seen))
}

// TestIdentifyGeneratedLaunches builds, for every target's generated HIP,
// the demangled name of each kernel a launcher launches (FORGE_LAUNCH's
// or FORGE_LAUNCH_AFTER's template instantiation, spelled as ncu and
// rocprofv3 print it) and
// checks that it maps back to that launcher, and that every launcher of the
// kernel table is reached on every target.
func TestIdentifyGeneratedLaunches(t *testing.T) {
	root := filepath.Join("..", "..", "..", "generated", "hip")
	targets, _ := filepath.Glob(filepath.Join(root, "*"))
	if len(targets) == 0 {
		t.Fatalf("no target folders under %s", root)
	}
	launch := regexp.MustCompile(`FORGE_LAUNCH(?:_AFTER)?\(\(?(forge_\w+)(?:<([^>]*)>)?\)?,`)
	externC := regexp.MustCompile(`^(?:extern "C" )?(?:FORGE_EXPORT )?int (forge_\w+)\(`)
	// A launcher's static helpers (<symbol>_kernel_launch, matmul's
	// <symbol>_kernel_int_launch) come before it and launch its kernels.
	helper := regexp.MustCompile(`^static \w+ (forge_\w+?)_kernel(?:_\w+)?\(`)
	for _, dir := range targets {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			continue
		}
		target := filepath.Base(dir)
		id := NewIdentifier(kernels.Kernels, target)
		seen := map[string]bool{}
		files, _ := filepath.Glob(filepath.Join(dir, "*.hip"))
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			launcher := ""
			for _, line := range strings.Split(string(data), "\n") {
				if m := externC.FindStringSubmatch(line); m != nil {
					launcher = m[1]
				} else if m := helper.FindStringSubmatch(line); m != nil {
					launcher = m[1]
				}
				m := launch.FindStringSubmatch(line)
				if m == nil {
					continue
				}
				var args []string
				if m[2] != "" {
					for _, a := range strings.Split(m[2], ",") {
						switch a = strings.TrimSpace(a); {
						case a == "uint16_t":
							args = append(args, "unsigned short")
						case a == "uint32_t":
							args = append(args, "unsigned int")
						case a == "uint64_t":
							args = append(args, "unsigned long")
						case a == "int32_t":
							args = append(args, "int")
						case a == "int64_t":
							args = append(args, "long")
						case a == "float", a == "true", a == "false":
							args = append(args, a)
						case regexp.MustCompile(`^\d+$`).MatchString(a):
							args = append(args, a+"u")
						default: // a template parameter or a tuning macro
							args = append(args, "256u")
						}
					}
				}
				name := "void " + m[1]
				if args != nil {
					name += "<" + strings.Join(args, ", ") + ">"
				}
				name += "(const void *, float *, long)"
				got, ok := id.Identify(name)
				if !ok {
					t.Errorf("%s: %s: not mapped", file, name)
					continue
				}
				seen[got.Symbol] = true
				if launcher != "" && strings.HasPrefix(launcher, "forge_") && got.Family != "copy" && got.Symbol != launcher &&
					!strings.HasPrefix(launcher, got.Symbol) {
					t.Errorf("%s: %s (launched by %s) mapped to %s", file, name, launcher, got.Symbol)
				}
			}
		}
		for _, k := range kernels.Kernels {
			if !seen[k.Symbol] {
				t.Errorf("%s: no launched kernel maps to %s", target, k.Symbol)
			}
		}
	}
}

// recordedPlan is the plan of scripts/gpu-profile.sh's ncu capture, with
// its CSV and run JSON copied into dir.
func recordedPlan(t *testing.T, csvData []byte) (*Plan, *bench.Run) {
	t.Helper()
	dir := t.TempDir()
	o := opts(NCU)
	o.OutDir, o.Launches = dir, 10
	plan, err := Build(o)
	if err != nil {
		t.Fatal(err)
	}
	if csvData == nil {
		if csvData, err = os.ReadFile(filepath.Join("testdata", "ncu_h100_dequant_matvec.csv")); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(plan.Outputs[0].Path, csvData, 0o644); err != nil {
		t.Fatal(err)
	}
	run, err := bench.ReadRun(filepath.Join("testdata", "ncu_h100_dequant_matvec.run.json"))
	if err != nil {
		t.Fatal(err)
	}
	return plan, run
}

// TestRecordedByBenchmark assembles the real H100 recording with its run:
// a row per benchmark, each with its own launches (one kernel's launches at
// four shapes are not merged), DRAM bandwidth below the H100's peak, and
// the counters the requested metrics only (not ncu's ~300 raw columns).
func TestRecordedByBenchmark(t *testing.T) {
	plan, run := recordedPlan(t, nil)
	parsed, err := ParseOutputs(plan)
	if err != nil {
		t.Fatal(err)
	}
	rep := Assemble(plan, 10, parsed, kernels.Kernels, run)
	if rep.Grouping != "benchmark" || len(rep.Notes) != 0 {
		t.Errorf("grouping %q, notes %q", rep.Grouping, rep.Notes)
	}
	if len(rep.Rows) != len(run.Results) {
		t.Fatalf("%d rows for %d benchmarks", len(rep.Rows), len(run.Results))
	}
	const h100PeakGBps = 3352
	for i, r := range run.Results {
		row := rep.Rows[i]
		if row.Benchmark != r.Name || !slices.Equal(row.Shape, r.Shape) || row.Launches != 10 || row.Identity == nil ||
			row.Identity.Kernel != r.Kernel || row.Identity.Format != r.Format {
			t.Errorf("row %d: %s %v %d launches %+v, want %s %v", i, row.Benchmark, row.Shape, row.Launches, row.Identity, r.Name, r.Shape)
		}
		if row.DRAMGBps <= 0 || row.DRAMGBps > h100PeakGBps || row.ForgeGBps <= 0 || row.ForgeGBps > h100PeakGBps {
			t.Errorf("%s: DRAM %.0f GB/s, forge %.0f GB/s", r.Name, row.DRAMGBps, row.ForgeGBps)
		}
		// The tool's bytes and forge's model agree within 15% (the
		// weights rotate, so the L2 does not serve them).
		if d := row.DRAMBytes / float64(row.ForgeBytes); d < 0.85 || d > 1.15 {
			t.Errorf("%s: DRAM bytes %.0f, forge bytes %d", r.Name, row.DRAMBytes, row.ForgeBytes)
		}
		var got []string
		for c := range row.Counters {
			got = append(got, c)
		}
		slices.Sort(got)
		want := slices.Sorted(slices.Values(DefaultNCUMetrics))
		if !slices.Equal(got, want) {
			t.Errorf("%s: counters %q, want %q", r.Name, got, want)
		}
	}
	// One shape's p50 is not another's: Q4_0's output matrix is 7× the 4096×14336.
	if a, b := rep.Rows[9].MedianNs, rep.Rows[7].MedianNs; a < 5*b {
		t.Errorf("Q4_0 output p50 %v, 4096x14336 p50 %v", a, b)
	}
	var buf strings.Builder
	if err := WriteTable(&buf, rep); err != nil {
		t.Fatal(err)
	}
	table := buf.String()
	for _, r := range run.Results {
		if !strings.Contains(table, r.Name) {
			t.Errorf("table lacks %s", r.Name)
		}
	}
	for _, bad := range []string{"device__attribute", "launch__", "c2clink__"} {
		if strings.Contains(table, bad) {
			t.Errorf("table has %s", bad)
		}
	}
	counters := table[strings.Index(table, "counters"):]
	if head := strings.Fields(strings.SplitN(counters, "\n", 3)[1]); !slices.Equal(head[1:], DefaultNCUMetrics) {
		t.Errorf("counters heading %q", head)
	}
	t.Logf("\n%s", table)
}

// TestRecordedCountsDoNotLineUp drops one launch of the recording: that
// launcher's benchmarks cannot be told apart, so its rows are per kernel
// name, with a note; the other launchers are still split.
func TestRecordedCountsDoNotLineUp(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "ncu_h100_dequant_matvec.csv"))
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, line := range strings.SplitAfter(string(data), "\n") {
		if !strings.HasPrefix(line, `"135",`) { // a launch of matvec_f32/Q8_0/output
			kept = append(kept, line)
		}
	}
	plan, run := recordedPlan(t, []byte(strings.Join(kept, "")))
	parsed, err := ParseOutputs(plan)
	if err != nil {
		t.Fatal(err)
	}
	rep := Assemble(plan, 10, parsed, kernels.Kernels, run)
	if rep.Grouping != "mixed" || len(rep.Notes) != 1 || !strings.Contains(rep.Notes[0], "forge_matvec_f32_q8_0: 39 launches profiled, 40 expected") {
		t.Fatalf("grouping %q, notes %q", rep.Grouping, rep.Notes)
	}
	split, q8 := 0, 0
	for _, r := range rep.Rows {
		switch {
		case r.Identity.Symbol == "forge_matvec_f32_q8_0":
			q8 += r.Launches
			if r.Benchmark != "" {
				t.Errorf("per-kernel row given benchmark %s", r.Benchmark)
			}
		default:
			split++
		}
	}
	if split != len(run.Results)-4 || q8 != 39 {
		t.Errorf("%d split rows, %d Q8_0 launches", split, q8)
	}
	var buf strings.Builder
	if err := WriteTable(&buf, rep); err != nil || !strings.Contains(buf.String(), "note: forge_matvec_f32_q8_0") {
		t.Errorf("%v\n%s", err, buf.String())
	}
}

// TestSplitRocprofTrace splits rocprofv3's kernel trace by benchmark and
// merges its counter collection launch by launch.
func TestSplitRocprofTrace(t *testing.T) {
	dir := t.TempDir()
	o := opts(Rocprof)
	o.OutDir, o.Metrics = dir, []string{"FETCH_SIZE", "WRITE_SIZE"}
	plan, err := Build(o)
	if err != nil {
		t.Fatal(err)
	}
	for from, to := range map[string]string{
		"synthetic_rocprofv3_kernel_trace.csv":       "forge_kernel_trace.csv",
		"synthetic_rocprofv3_kernel_stats.csv":       "forge_kernel_stats.csv",
		"synthetic_rocprofv3_counter_collection.csv": "forge_counter_collection.csv",
	} {
		b, err := os.ReadFile(filepath.Join("testdata", from))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(dir, "rocprof"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "rocprof", to), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	parsed, err := ParseOutputs(plan)
	if err != nil {
		t.Fatal(err)
	}
	if len(parsed.Launches) != 5 || parsed.Launches[1].Counters["FETCH_SIZE"] != 36880 {
		t.Fatalf("launches %+v", parsed.Launches)
	}
	res := func(name string, n int, bytes int64) bench.Result {
		return bench.Result{Name: name, Kernel: "matvec_f32", Format: "Q4_K", BytesRead: bytes, Samples: make([]time.Duration, n), Stats: bench.Stats{N: n}}
	}
	run := &bench.Run{Meta: bench.Meta{Target: "gfx1100"}, Results: []bench.Result{res("matvec_f32/Q4_K/a", 1, 41000e3), res("matvec_f32/Q4_K/b", 2, 82000e3)}}
	rep := Assemble(plan, 1, parsed, kernels.Kernels, run)
	if rep.Grouping != "benchmark" || len(rep.Rows) != 4 {
		t.Fatalf("grouping %s, %d rows: %+v", rep.Grouping, len(rep.Rows), rep.Rows)
	}
	a, b := rep.Rows[0], rep.Rows[1]
	if a.Benchmark != "matvec_f32/Q4_K/a" || a.Launches != 1 || a.MedianNs != 41000 || a.DRAMBytes != (36880+16)*1024 || !near(a.ForgeGBps, 1000) {
		t.Errorf("a: %+v", a)
	}
	if b.Benchmark != "matvec_f32/Q4_K/b" || b.Launches != 2 || b.MedianNs != 41000 || !near(b.ForgeGBps, 2000) {
		t.Errorf("b: %+v", b)
	}
	// Kernels no benchmark launched: per kernel, after the benchmarks.
	if rep.Rows[2].Identity == nil || rep.Rows[2].Identity.Family != "attention" || rep.Rows[3].Identity != nil || rep.Rows[2].Benchmark != "" {
		t.Errorf("rest: %+v", rep.Rows[2:])
	}
}
