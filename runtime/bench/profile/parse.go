package profile

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Kernel is one profiled kernel: its launches aggregated.
type Kernel struct {
	Name     string `json:"name"` // as the tool prints it (demangled or mangled)
	Launches int    `json:"launches"`
	// Durations in nanoseconds. DurationsNs holds every launch's when the
	// tool reports launches (ncu, rocprofv3 trace, rocprof, omniperf);
	// summary tools (nsys, the stats files) give the figures only.
	DurationsNs []float64 `json:"durations_ns,omitempty"`
	MedianNs    float64   `json:"median_ns"`
	MeanNs      float64   `json:"mean_ns"`
	MinNs       float64   `json:"min_ns,omitempty"`
	MaxNs       float64   `json:"max_ns,omitempty"`
	TotalNs     float64   `json:"total_ns"`
	// DRAMBytes is the mean bytes read plus written per launch as the
	// tool's counters measured them; 0 when the tool has no such counter.
	DRAMBytes float64 `json:"dram_bytes,omitempty"`
	// DRAMPctPeak is the tool's own DRAM throughput as % of peak (ncu);
	// Occupancy the achieved occupancy in % (ncu's warps active, AMD's
	// OccupancyPercent). Nil when not measured.
	DRAMPctPeak *float64 `json:"dram_pct_peak,omitempty"`
	Occupancy   *float64 `json:"occupancy_pct,omitempty"`
	// Counters are every counter's mean per launch, in Units (base units:
	// ns, byte, %, or the tool's own).
	Counters map[string]float64 `json:"counters,omitempty"`
	Units    map[string]string  `json:"units,omitempty"`
}

// DRAMGBps is DRAMBytes ÷ the median duration, in GB/s (0 if unknown).
func (k *Kernel) DRAMGBps() float64 {
	if k.DRAMBytes <= 0 || k.MedianNs <= 0 {
		return 0
	}
	return k.DRAMBytes / k.MedianNs
}

// Launch is one kernel launch of a per-launch file (ncu's raw or details
// page, rocprofv3's kernel trace and counter collection, legacy rocprof's
// results, omniperf's pmc_perf), in the tool's launch order.
type Launch struct {
	ID       string             `json:"id,omitempty"` // ncu's ID, rocprof's Dispatch_Id
	Name     string             `json:"name"`
	Ns       float64            `json:"duration_ns"`
	Counters map[string]float64 `json:"counters,omitempty"`
}

// Parsed is a tool's file parsed: Launches in launch order where the file
// has a row per launch (nil for the summaries: nsys's cuda_gpu_kern_sum,
// the kernel_stats files), and Kernels, the launches aggregated by name.
type Parsed struct {
	Launches []Launch
	Units    map[string]string // counter units (base units), where known
	Kernels  []Kernel
}

func parsedOf(ls []Launch, units map[string]string) *Parsed {
	return &Parsed{Launches: ls, Units: units, Kernels: collect(ls, units)}
}

// collect aggregates launches by name, in order of first appearance.
func collect(ls []Launch, units map[string]string) []Kernel {
	var order []string
	by := map[string][]Launch{}
	for _, l := range ls {
		if _, ok := by[l.Name]; !ok {
			order = append(order, l.Name)
		}
		by[l.Name] = append(by[l.Name], l)
	}
	out := make([]Kernel, 0, len(order))
	for _, name := range order {
		out = append(out, Aggregate(name, by[name], units))
	}
	return out
}

// Aggregate makes one record of launches: their durations and every
// counter's mean over the launches that have it.
func Aggregate(name string, ls []Launch, units map[string]string) Kernel {
	k := Kernel{Name: name, Launches: len(ls)}
	for _, l := range ls {
		k.DurationsNs = append(k.DurationsNs, l.Ns)
	}
	k.setDurations()
	sums := map[string]float64{}
	counts := map[string]int{}
	for _, l := range ls {
		for c, v := range l.Counters {
			sums[c] += v
			counts[c]++
		}
	}
	if len(sums) > 0 {
		k.Counters = map[string]float64{}
		k.Units = map[string]string{}
		for c, s := range sums {
			k.Counters[c] = s / float64(counts[c])
			if u := units[c]; u != "" {
				k.Units[c] = u
			}
		}
	}
	k.derive()
	return k
}

// setDurations fills the summary figures from DurationsNs.
func (k *Kernel) setDurations() {
	d := slices.Clone(k.DurationsNs)
	if len(d) == 0 {
		return
	}
	sort.Float64s(d)
	total := 0.0
	for _, x := range d {
		total += x
	}
	k.TotalNs, k.MeanNs, k.MinNs, k.MaxNs = total, total/float64(len(d)), d[0], d[len(d)-1]
	if n := len(d); n%2 == 1 {
		k.MedianNs = d[n/2]
	} else {
		k.MedianNs = (d[n/2-1] + d[n/2]) / 2
	}
}

// derive sets DRAMBytes, DRAMPctPeak and Occupancy from known counters.
func (k *Kernel) derive() {
	c := k.Counters
	if c == nil {
		return
	}
	r, okR := c[ncuDRAMRead]
	w, okW := c[ncuDRAMWrite]
	if okR || okW {
		k.DRAMBytes = r + w
	} else {
		f, okF := c[amdFetchKB]
		w, okW := c[amdWriteKB]
		if okF || okW {
			k.DRAMBytes = (f + w) * 1024 // rocprof's FETCH_SIZE/WRITE_SIZE are in KB (1024 bytes)
		}
	}
	if v, ok := c[ncuDRAMPct]; ok {
		k.DRAMPctPeak = &v
	}
	for _, name := range []string{ncuOccupancy, amdOccupancy} {
		if v, ok := c[name]; ok {
			k.Occupancy = &v
			break
		}
	}
}

// readCSV reads every record of a CSV, skipping blank lines and the lines
// tools print around it (ncu's ==PROF==, ==WARNING==, ==ERROR==; nsys's
// notices) before its header, which is the first line that has each of
// want's columns.
func readCSV(r io.Reader, want ...string) (header []string, rows [][]string, err error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, nil, err
	}
	// Find the header line; everything before it is the tool's chatter.
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	offset, found := 0, false
	for sc.Scan() {
		line := sc.Text()
		if hasAll(line, want) {
			found = true
			break
		}
		offset += len(sc.Bytes()) + 1
	}
	if !found {
		return nil, nil, fmt.Errorf("no CSV header with the columns %s", strings.Join(want, ", "))
	}
	var keep bytes.Buffer
	for _, line := range strings.SplitAfter(string(data[offset:]), "\n") {
		if t := strings.TrimSpace(line); t == "" || strings.HasPrefix(t, "==") {
			continue
		}
		keep.WriteString(line)
	}
	cr := csv.NewReader(&keep)
	cr.FieldsPerRecord = -1
	recs, err := cr.ReadAll()
	if err != nil {
		return nil, nil, err
	}
	if len(recs) == 0 {
		return nil, nil, errors.New("empty CSV")
	}
	h := recs[0]
	for i := range h {
		h[i] = strings.TrimSpace(strings.TrimPrefix(h[i], "\ufeff"))
	}
	return h, recs[1:], nil
}

func hasAll(line string, cols []string) bool {
	for _, c := range cols {
		if !strings.Contains(line, c) {
			return false
		}
	}
	return true
}

func index(header []string) map[string]int {
	m := make(map[string]int, len(header))
	for i, h := range header {
		if _, dup := m[h]; !dup {
			m[h] = i
		}
	}
	return m
}

func field(row []string, i int) string {
	if i < 0 || i >= len(row) {
		return ""
	}
	return strings.TrimSpace(row[i])
}

// number parses a tool's number: thousands separators dropped; "n/a", ""
// and non-numbers are not numbers.
func number(s string) (float64, bool) {
	s = strings.ReplaceAll(strings.TrimSpace(s), ",", "")
	if s == "" {
		return 0, false
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, false
	}
	return v, true
}

// scale converts a value in an ncu unit to the base unit (ns, byte, and
// byte/second); others are kept as they are. ncu's prefixes are decimal.
func scale(v float64, unit string) (float64, string) {
	switch unit {
	case "nsecond", "ns":
		return v, "ns"
	case "usecond", "us":
		return v * 1e3, "ns"
	case "msecond", "ms":
		return v * 1e6, "ns"
	case "second", "s":
		return v * 1e9, "ns"
	case "byte":
		return v, "byte"
	case "Kbyte":
		return v * 1e3, "byte"
	case "Mbyte":
		return v * 1e6, "byte"
	case "Gbyte":
		return v * 1e9, "byte"
	case "Tbyte":
		return v * 1e12, "byte"
	case "byte/second":
		return v, "byte/second"
	case "Kbyte/second":
		return v * 1e3, "byte/second"
	case "Mbyte/second":
		return v * 1e6, "byte/second"
	case "Gbyte/second":
		return v * 1e9, "byte/second"
	case "Tbyte/second":
		return v * 1e12, "byte/second"
	}
	return v, unit
}

// ParseNCU parses ncu --csv output: the raw page (one row per launch, a
// metric per column, a units row under the header) or the details page
// (one row per launch and metric: Metric Name, Metric Unit, Metric Value).
// The duration is gpu__time_duration.sum, which must be collected.
func ParseNCU(r io.Reader) ([]Kernel, error) {
	p, err := ParseNCULaunches(r)
	if err != nil {
		return nil, err
	}
	return p.Kernels, nil
}

// ParseNCULaunches is ParseNCU keeping the launches, in ncu's ID order
// (the order of the launches). Every metric column of the raw page is kept
// as a counter, the device__attribute_* and launch__* ones included;
// forgebench profile keeps only the metrics it asked for (RestrictCounters).
func ParseNCULaunches(r io.Reader) (*Parsed, error) {
	header, rows, err := readCSV(r, `"ID"`, `"Kernel Name"`)
	if err != nil {
		return nil, fmt.Errorf("ncu: %w", err)
	}
	col := index(header)
	if _, long := col["Metric Name"]; long {
		return parseNCULong(col, rows)
	}
	id, name := col["ID"], col["Kernel Name"]
	// Metric columns are the dotted ones (unit__metric.rollup...).
	var metrics []int
	for i, h := range header {
		if strings.Contains(h, "__") {
			metrics = append(metrics, i)
		}
	}
	if !slices.ContainsFunc(metrics, func(i int) bool { return header[i] == ncuDuration }) {
		return nil, fmt.Errorf("ncu: no %s column; collect it (--metrics)", ncuDuration)
	}
	units := map[string]string{} // as the units row gives them
	base := map[string]string{}  // after scale
	var ls []Launch
	for _, row := range rows {
		if field(row, id) == "" { // the units row
			for _, i := range metrics {
				units[header[i]] = field(row, i)
			}
			continue
		}
		l := Launch{ID: field(row, id), Name: field(row, name), Counters: map[string]float64{}}
		for _, i := range metrics {
			v, ok := number(field(row, i))
			if !ok {
				continue
			}
			v, u := scale(v, units[header[i]])
			l.Counters[header[i]] = v
			base[header[i]] = u
		}
		d, ok := l.Counters[ncuDuration]
		if !ok {
			return nil, fmt.Errorf("ncu: launch %s (%s) has no %s", l.ID, l.Name, ncuDuration)
		}
		l.Ns = d
		ls = append(ls, l)
	}
	sortByID(ls)
	return parsedOf(ls, base), nil
}

// sortByID puts launches in the order of their IDs when every ID is a
// number (ncu's ID, rocprof's Dispatch_Id count launches from 0 or 1).
func sortByID(ls []Launch) {
	ids := make([]float64, len(ls))
	for i, l := range ls {
		v, ok := number(l.ID)
		if !ok {
			return
		}
		ids[i] = v
	}
	perm := make([]int, len(ls))
	for i := range perm {
		perm[i] = i
	}
	sort.SliceStable(perm, func(a, b int) bool { return ids[perm[a]] < ids[perm[b]] })
	sorted := make([]Launch, len(ls))
	for i, j := range perm {
		sorted[i] = ls[j]
	}
	copy(ls, sorted)
}

func parseNCULong(col map[string]int, rows [][]string) (*Parsed, error) {
	id, name := col["ID"], col["Kernel Name"]
	mName, mUnit, mValue := col["Metric Name"], col["Metric Unit"], col["Metric Value"]
	if _, ok := col["Metric Value"]; !ok {
		return nil, errors.New("ncu: details page without a Metric Value column")
	}
	units := map[string]string{}
	var order []string
	byID := map[string]*Launch{}
	for _, row := range rows {
		key := field(row, id)
		l, ok := byID[key]
		if !ok {
			l = &Launch{ID: key, Name: field(row, name), Counters: map[string]float64{}}
			byID[key] = l
			order = append(order, key)
		}
		v, ok := number(field(row, mValue))
		if !ok {
			continue
		}
		v, u := scale(v, field(row, mUnit))
		m := field(row, mName)
		l.Counters[m] = v
		units[m] = u
	}
	var ls []Launch
	for _, key := range order {
		l := byID[key]
		d, ok := l.Counters[ncuDuration]
		if !ok {
			return nil, fmt.Errorf("ncu: launch %s (%s) has no %s; collect it (--metrics)", key, l.Name, ncuDuration)
		}
		l.Ns = d
		ls = append(ls, *l)
	}
	sortByID(ls)
	return parsedOf(ls, units), nil
}

// ParseNsysKernSum parses nsys stats' cuda_gpu_kern_sum CSV. The time
// columns' unit is read from their headings ("Avg (ns)"; nsys's --timeunit
// may choose us, ms or s).
func ParseNsysKernSum(r io.Reader) ([]Kernel, error) {
	header, rows, err := readCSV(r, "Instances", "Name")
	if err != nil {
		return nil, fmt.Errorf("nsys: %w", err)
	}
	find := func(prefix string) (int, float64) {
		for i, h := range header {
			if h == prefix || strings.HasPrefix(h, prefix+" (") {
				f := 1.0
				if _, u, ok := strings.Cut(h, "("); ok {
					f, _ = scale(1, strings.TrimSuffix(u, ")"))
				}
				return i, f
			}
		}
		return -1, 0
	}
	total, ft := find("Total Time")
	inst, _ := find("Instances")
	avg, fa := find("Avg")
	med, fm := find("Med")
	mn, fmin := find("Min")
	mx, fmax := find("Max")
	name, _ := find("Name")
	if total < 0 || avg < 0 || med < 0 || name < 0 {
		return nil, fmt.Errorf("nsys: want the columns Total Time, Instances, Avg, Med and Name; have %q", header)
	}
	var out []Kernel
	for _, row := range rows {
		n, ok := number(field(row, inst))
		if !ok {
			continue
		}
		k := Kernel{Name: field(row, name), Launches: int(n)}
		get := func(i int, f float64) float64 { v, _ := number(field(row, i)); return v * f }
		k.TotalNs, k.MeanNs, k.MedianNs, k.MinNs, k.MaxNs = get(total, ft), get(avg, fa), get(med, fm), get(mn, fmin), get(mx, fmax)
		out = append(out, k)
	}
	return out, nil
}

// ParseRocprofStats parses a kernel_stats CSV (rocprofv3's
// NAME_kernel_stats.csv, legacy rocprof's FILE.stats.csv): Name, Calls,
// TotalDurationNs, AverageNs, Percentage[, MinNs, MaxNs, StdDev]. It has
// no median: MedianNs is the mean.
func ParseRocprofStats(r io.Reader) ([]Kernel, error) {
	header, rows, err := readCSV(r, "Name", "Calls", "TotalDurationNs")
	if err != nil {
		return nil, fmt.Errorf("rocprof stats: %w", err)
	}
	col := index(header)
	var out []Kernel
	for _, row := range rows {
		calls, ok := number(field(row, col["Calls"]))
		if !ok {
			continue
		}
		k := Kernel{Name: field(row, col["Name"]), Launches: int(calls)}
		k.TotalNs, _ = number(field(row, col["TotalDurationNs"]))
		if v, ok := number(field(row, idx(col, "AverageNs"))); ok {
			k.MeanNs = v
		} else if calls > 0 {
			k.MeanNs = k.TotalNs / calls
		}
		k.MedianNs = k.MeanNs
		k.MinNs, _ = number(field(row, idx(col, "MinNs")))
		k.MaxNs, _ = number(field(row, idx(col, "MaxNs")))
		out = append(out, k)
	}
	return out, nil
}

func idx(col map[string]int, name string) int {
	if i, ok := col[name]; ok {
		return i
	}
	return -1
}

// ParseRocprofTrace parses rocprofv3's NAME_kernel_trace.csv: one row per
// dispatch (Kernel_Name, Start_Timestamp, End_Timestamp in ns).
func ParseRocprofTrace(r io.Reader) ([]Kernel, error) {
	return kernelsOf(parseRocprofTrace(r))
}

func parseRocprofTrace(r io.Reader) (*Parsed, error) {
	return parseDispatches(r, "rocprofv3 kernel trace", "Kernel_Name", "Start_Timestamp", "End_Timestamp", "Dispatch_Id", nil)
}

// ParseRocprofLegacy parses legacy rocprof's per-dispatch results.csv
// (KernelName, BeginNs, EndNs, and a column per pmc counter).
func ParseRocprofLegacy(r io.Reader) ([]Kernel, error) {
	return kernelsOf(parseRocprofLegacy(r))
}

func parseRocprofLegacy(r io.Reader) (*Parsed, error) {
	return parseDispatches(r, "rocprof results", "KernelName", "BeginNs", "EndNs", "Index", legacyFixed)
}

// ParseOmniperf parses omniperf's / rocprof-compute's pmc_perf.csv: one row
// per dispatch (Kernel_Name, Start_Timestamp, End_Timestamp) and a column
// per counter.
func ParseOmniperf(r io.Reader) ([]Kernel, error) {
	return kernelsOf(parseOmniperf(r))
}

func parseOmniperf(r io.Reader) (*Parsed, error) {
	return parseDispatches(r, "omniperf pmc_perf", "Kernel_Name", "Start_Timestamp", "End_Timestamp", "Dispatch_ID", omniperfFixed)
}

func kernelsOf(p *Parsed, err error) ([]Kernel, error) {
	if err != nil {
		return nil, err
	}
	return p.Kernels, nil
}

// The descriptive (non-counter) columns of the wide per-dispatch files.
var (
	legacyFixed = []string{"Index", "KernelName", "gpu-id", "queue-id", "queue-index", "pid", "tid", "grd", "wgr", "lds", "scr",
		"arch_vgpr", "accum_vgpr", "vgpr", "sgpr", "wave_size", "sig", "obj", "DispatchNs", "BeginNs", "EndNs", "CompleteNs", "DurationNs"}
	omniperfFixed = []string{"Dispatch_ID", "GPU_ID", "Queue_ID", "PID", "TID", "Grid_Size", "Workgroup_Size", "LDS_Per_Workgroup",
		"Scratch_Per_Workitem", "Arch_VGPR", "Accum_VGPR", "SGPR", "Wave_Size", "Kernel_Name", "Start_Timestamp", "End_Timestamp",
		"Correlation_ID", "Kernel_ID", "Node", "Agent_Id"}
)

// parseDispatches reads a one-row-per-dispatch CSV, launches in the order
// they started; with fixed non-nil, every other numeric column is a
// counter.
func parseDispatches(r io.Reader, what, nameCol, startCol, endCol, idCol string, fixed []string) (*Parsed, error) {
	header, rows, err := readCSV(r, nameCol, startCol, endCol)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	col := index(header)
	var counters []int
	if fixed != nil {
		for i, h := range header {
			if !slices.Contains(fixed, h) {
				counters = append(counters, i)
			}
		}
	}
	var ls []Launch
	var starts []float64
	for n, row := range rows {
		start, ok1 := number(field(row, col[startCol]))
		end, ok2 := number(field(row, col[endCol]))
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("%s: row %d: bad timestamps %q, %q", what, n+2, field(row, col[startCol]), field(row, col[endCol]))
		}
		l := Launch{ID: field(row, idx(col, idCol)), Name: field(row, col[nameCol]), Ns: end - start}
		for _, i := range counters {
			if v, ok := number(field(row, i)); ok {
				if l.Counters == nil {
					l.Counters = map[string]float64{}
				}
				l.Counters[header[i]] = v
			}
		}
		ls = append(ls, l)
		starts = append(starts, start)
	}
	// Launch order: by start time (the files are written per thread or
	// queue, not necessarily in order).
	perm := make([]int, len(ls))
	for i := range perm {
		perm[i] = i
	}
	sort.SliceStable(perm, func(a, b int) bool { return starts[perm[a]] < starts[perm[b]] })
	sorted := make([]Launch, len(ls))
	for i, j := range perm {
		sorted[i] = ls[j]
	}
	return parsedOf(sorted, nil), nil
}

// ParseRocprofCounters parses rocprofv3's NAME_counter_collection.csv: one
// row per dispatch and counter (Dispatch_Id, Kernel_Name, Counter_Name,
// Counter_Value, Start_Timestamp, End_Timestamp). A counter that appears
// several times for one dispatch (per instance) is summed.
func ParseRocprofCounters(r io.Reader) ([]Kernel, error) {
	return kernelsOf(parseRocprofCounters(r))
}

func parseRocprofCounters(r io.Reader) (*Parsed, error) {
	header, rows, err := readCSV(r, "Kernel_Name", "Counter_Name", "Counter_Value")
	if err != nil {
		return nil, fmt.Errorf("rocprofv3 counters: %w", err)
	}
	col := index(header)
	disp := idx(col, "Dispatch_Id")
	if disp < 0 {
		disp = idx(col, "Correlation_Id")
	}
	start, end := idx(col, "Start_Timestamp"), idx(col, "End_Timestamp")
	var order []string
	by := map[string]*Launch{}
	for n, row := range rows {
		key := field(row, disp)
		if disp < 0 {
			key = strconv.Itoa(n)
		}
		l, ok := by[key]
		if !ok {
			l = &Launch{Name: field(row, col["Kernel_Name"]), Counters: map[string]float64{}}
			if disp >= 0 {
				l.ID = key
			}
			s, ok1 := number(field(row, start))
			e, ok2 := number(field(row, end))
			if ok1 && ok2 {
				l.Ns = e - s
			}
			by[key] = l
			order = append(order, key)
		}
		if v, ok := number(field(row, col["Counter_Value"])); ok {
			l.Counters[field(row, col["Counter_Name"])] += v
		}
	}
	ls := make([]Launch, len(order))
	for i, key := range order {
		ls[i] = *by[key]
	}
	sortByID(ls)
	return parsedOf(ls, nil), nil
}

// Merge folds the counters of extra (e.g. rocprofv3's counter collection)
// into base (its kernel trace), by kernel name.
func Merge(base, extra []Kernel) []Kernel {
	for i := range base {
		for _, e := range extra {
			if e.Name != base[i].Name || len(e.Counters) == 0 {
				continue
			}
			if base[i].Counters == nil {
				base[i].Counters = map[string]float64{}
			}
			for c, v := range e.Counters {
				base[i].Counters[c] = v
			}
			base[i].derive()
		}
	}
	return base
}

// MergeLaunches folds the counters of extra's launches into base's, launch
// by launch (the same ID: rocprofv3's Dispatch_Id in its kernel trace and
// counter collection). It reports whether every launch of extra found its
// launch in base.
func MergeLaunches(base, extra []Launch) bool {
	at := map[string]int{}
	for i, l := range base {
		if l.ID == "" {
			return false
		}
		at[l.ID] = i
	}
	all := true
	for _, e := range extra {
		i, ok := at[e.ID]
		if !ok || e.ID == "" || base[i].Name != e.Name {
			all = false
			continue
		}
		if base[i].Counters == nil {
			base[i].Counters = map[string]float64{}
		}
		for c, v := range e.Counters {
			base[i].Counters[c] = v
		}
	}
	return all
}

// RestrictCounters keeps, of each counter map, the metrics asked for: a
// counter named as asked, or the asked name followed by a rollup
// (".sum", ".avg.pct_of_peak_sustained_elapsed"). The rest of ncu's raw
// page (device__attribute_*, launch__*, c2clink__*, …) is dropped.
func RestrictCounters(p *Parsed, metrics []string) {
	if len(metrics) == 0 {
		return
	}
	keep := func(c string) bool {
		for _, m := range metrics {
			if c == m || strings.HasPrefix(c, m+".") {
				return true
			}
		}
		return false
	}
	restrict := func(m map[string]float64) {
		for c := range m {
			if !keep(c) {
				delete(m, c)
			}
		}
	}
	for i := range p.Launches {
		restrict(p.Launches[i].Counters)
	}
	for i := range p.Kernels {
		restrict(p.Kernels[i].Counters)
		for c := range p.Kernels[i].Units {
			if !keep(c) {
				delete(p.Kernels[i].Units, c)
			}
		}
	}
	for c := range p.Units {
		if !keep(c) {
			delete(p.Units, c)
		}
	}
}
