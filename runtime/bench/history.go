package bench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/rocmforge/forge/internal/atomicfile"
	"github.com/rocmforge/forge/runtime/suite"
)

// A history is an append-only file of runs, one JSON object per line
// (JSONL): forgebench run --history FILE appends each run to it and
// forgebench history FILE reads it back into a trend per benchmark across
// commits (Trend). A line holds the run's metadata and, per benchmark, its
// median time with the 95% confidence interval, the sample count and the
// samples themselves when there are at most HistoryMaxSamples of them
// (enough for the U test between two runs, and a line of a few hundred KB
// at most), so the file stays small and grows by one line per run.
//
// Appends from several processes at once never interleave: AppendHistory
// opens the file O_APPEND, takes an exclusive flock(2) on it (where the
// platform has flock; see history_lock_*.go; and a mutex among the process's
// own goroutines), and writes the whole line with one write(2), then syncs.
// POSIX makes an O_APPEND write land at the end of the file as one step, and
// the local file systems of Linux serialize the writes to one file, but
// neither promises anything of a write split by the kernel (a signal, a
// short write) or of NFS, whose clients do not share O_APPEND; the lock
// covers those, on every file system where flock works (Linux emulates it
// with byte-range locks on NFS), for every writer that takes it — all
// forgebench processes do. A line cut short by a crash or a full disk is the
// only way to a broken line; the next append starts on a new line (it checks
// the last byte under the lock), so the damage stays in that one line, which
// ReadHistory reports by number.

// HistoryKind tells a history line apart from other JSON.
const HistoryKind = "forgebench.history"

// HistorySchema is the schema version of history lines; readers refuse
// other versions, naming the line.
const HistorySchema = 1

// HistoryMaxSamples is the most samples a history line keeps per
// benchmark: past it (a long --auto or --min-time run) only the median, its
// confidence interval and the count are kept, and the trend shows no
// p-value for that run.
const HistoryMaxSamples = 256

// HistoryEntry is one line of a history file: one run.
type HistoryEntry struct {
	Kind        string          `json:"kind"`           // HistoryKind
	Schema      int             `json:"schema_version"` // HistorySchema
	Started     time.Time       `json:"started"`
	Finished    time.Time       `json:"finished"`
	Source      string          `json:"source,omitempty"` // the command that appended it: "run", "compare"
	Meta        Meta            `json:"meta"`
	Roofline    *Roofline       `json:"roofline,omitempty"`
	Interrupted bool            `json:"interrupted,omitempty"`
	Results     []HistoryResult `json:"results"`

	// Line is the entry's line number in the file it was read from (from
	// 1); not written.
	Line int `json:"-"`
}

// HistoryResult is one benchmark of a HistoryEntry: what a trend needs and
// little more.
type HistoryResult struct {
	Name   string `json:"name"`
	Suite  string `json:"suite,omitempty"`
	Family string `json:"family,omitempty"`
	Format string `json:"format,omitempty"`
	Shape  []int  `json:"shape,omitempty"`
	// N is the number of samples measured (also when Samples is left out).
	N int `json:"n"`
	// Unit is the unit of Median, Lo and Hi: "ns" (per iteration); "" for
	// a scenario's figures alone (N 0, Metrics only).
	Unit string `json:"unit,omitempty"`
	// Median is the median of the samples, as compare computes it
	// (SummarizeMetric); Lo and Hi bound its 95% confidence interval, both
	// 0 (left out) when there are too few samples for one.
	Median float64 `json:"median,omitempty"`
	Lo     float64 `json:"lo,omitempty"`
	Hi     float64 `json:"hi,omitempty"`
	// The benchmark's size per iteration: a trend does not judge two runs
	// of one name at different sizes.
	Elements int64 `json:"elements,omitempty"`
	Bytes    int64 `json:"bytes,omitempty"` // read + written
	FLOPs    int64 `json:"flops,omitempty"`
	// Samples are the times per iteration in ns, in the order measured,
	// when N ≤ HistoryMaxSamples; nil otherwise.
	Samples []int64        `json:"samples_ns,omitempty"`
	Metrics []suite.Metric `json:"metrics,omitempty"` // a scenario suite's figures
}

// NewHistoryEntry is run as a history line; source names the command
// ("run", "compare").
func NewHistoryEntry(run *Run, source string) *HistoryEntry {
	e := &HistoryEntry{
		Kind: HistoryKind, Schema: HistorySchema, Started: run.Started, Finished: run.Finished, Source: source,
		Meta: run.Meta, Roofline: run.Roofline, Interrupted: run.Interrupted, Results: []HistoryResult{},
	}
	for i := range run.Results {
		r := &run.Results[i]
		h := HistoryResult{
			Name: r.Name, Suite: r.Suite, Family: r.Family, Format: r.Format, Shape: r.Shape, N: len(r.Samples),
			Elements: r.Elements, Bytes: r.BytesRead + r.BytesWritten, FLOPs: r.FLOPs, Metrics: r.Metrics,
		}
		if s, ok := SummarizeMetric(r, MetricTime, Confidence); ok {
			h.Unit, h.Median = "ns", s.Center
			if lo, hi := float64(s.Lo), float64(s.Hi); finite(lo) && finite(hi) {
				h.Lo, h.Hi = lo, hi
			}
		}
		if len(r.Samples) <= HistoryMaxSamples {
			for _, d := range r.Samples {
				h.Samples = append(h.Samples, int64(d))
			}
		}
		e.Results = append(e.Results, h)
	}
	return e
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// Validate checks what a trend relies on: kind and schema, and per result
// a unique name, counts and times that are not negative, and samples that
// agree with the count.
func (e *HistoryEntry) Validate() error {
	if e.Kind != HistoryKind {
		return fmt.Errorf("kind is %q, want %q", e.Kind, HistoryKind)
	}
	if e.Schema != HistorySchema {
		return fmt.Errorf("schema_version %d is not supported (this forgebench reads version %d)", e.Schema, HistorySchema)
	}
	seen := make(map[string]bool, len(e.Results))
	for i, r := range e.Results {
		switch {
		case r.Name == "":
			return fmt.Errorf("result %d has no name", i)
		case seen[r.Name]:
			return fmt.Errorf("result %q appears twice", r.Name)
		case r.N < 0 || r.Median < 0 || r.Lo < 0 || r.Hi < 0 || !finite(r.Median) || r.Elements < 0 || r.Bytes < 0 || r.FLOPs < 0:
			return fmt.Errorf("result %q: a negative or non-finite count, time or size", r.Name)
		case len(r.Samples) > 0 && len(r.Samples) != r.N:
			return fmt.Errorf("result %q: %d samples but n %d", r.Name, len(r.Samples), r.N)
		case r.N > 0 && r.Unit != "ns":
			return fmt.Errorf("result %q: unit %q, want \"ns\"", r.Name, r.Unit)
		}
		for _, s := range r.Samples {
			if s < 0 {
				return fmt.Errorf("result %q: a negative sample (%d ns)", r.Name, s)
			}
		}
		seen[r.Name] = true
	}
	return nil
}

// MarshalHistoryLine is e as one history line: compact JSON (no raw
// newline can occur in it: encoding/json escapes control characters in
// strings) ending in '\n'.
func MarshalHistoryLine(e *HistoryEntry) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(e); err != nil { // Encode ends the value with '\n'
		return nil, err
	}
	return buf.Bytes(), nil
}

// CheckHistory reports, before a run, the error AppendHistory would refuse
// path with, as far as that can be told without writing: "-" (a history is
// a file), something other than a regular file (a directory, FIFO, socket,
// device: refused without being opened; /dev/null is taken, to discard), a
// dangling symbolic link (no file is created through a link), a file that
// cannot be opened for writing, or a missing file in a directory where it
// cannot be created. It creates nothing.
func CheckHistory(path string) error {
	if path == "" || path == "-" {
		return fmt.Errorf("history %q: want a file (a history is appended to, not written to standard output)", path)
	}
	dest, fi, err := historyTarget(path)
	if err != nil {
		return err
	}
	if fi == nil { // a new file: can it be created there?
		dir := filepath.Dir(dest)
		di, err := os.Stat(dir)
		if err != nil {
			return fmt.Errorf("cannot append to %s: %w", path, err)
		}
		if !di.IsDir() {
			return fmt.Errorf("cannot append to %s: %s is not a directory", path, dir)
		}
		f, err := os.CreateTemp(dir, ".forgebench-check-*")
		if err != nil {
			return fmt.Errorf("cannot append to %s: %w", path, err)
		}
		f.Close()
		return os.Remove(f.Name())
	}
	f, err := openHistory(path, false)
	if err != nil {
		return err
	}
	return f.Close()
}

// historyTarget follows path (through a symbolic link) and returns where it
// leads and what is there (nil: nothing yet), refusing what AppendHistory
// may not append to.
func historyTarget(path string) (string, fs.FileInfo, error) {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return path, nil, nil
	}
	if err != nil {
		return path, nil, fmt.Errorf("cannot append to %s: %w", path, err)
	}
	dest, is := path, "it is"
	if fi.Mode()&fs.ModeSymlink != 0 {
		if dest, err = filepath.EvalSymlinks(path); err != nil {
			if to, rerr := os.Readlink(path); rerr == nil && errors.Is(err, fs.ErrNotExist) {
				return path, nil, fmt.Errorf("cannot append to %s: it is a dangling symbolic link (to %s); forge appends through a link only to an existing file", path, to)
			}
			return path, nil, fmt.Errorf("cannot append to %s: it is a symbolic link that cannot be followed: %w", path, err)
		}
		if fi, err = os.Stat(dest); err != nil {
			return path, nil, fmt.Errorf("cannot append to %s: %w", path, err)
		}
		is = fmt.Sprintf("it links to %s, which is", dest)
	}
	if !fi.Mode().IsRegular() && !atomicfile.IsDevNull(fi) {
		return path, nil, fmt.Errorf("cannot append to %s: %s %s, not a regular file; a history is a regular file", path, is, atomicfile.Kind(fi))
	}
	return dest, fi, nil
}

// openHistory opens path for appending (creating it when create is set and
// nothing is there), without blocking on a FIFO that appeared since it was
// checked, and refuses anything but a regular file or /dev/null.
func openHistory(path string, create bool) (*os.File, error) {
	if _, _, err := historyTarget(path); err != nil {
		return nil, err
	}
	flags := os.O_APPEND | historyNonblock
	if create {
		flags |= os.O_CREATE
	}
	// Read-write when allowed, for appendLine's look at the last byte.
	f, err := os.OpenFile(path, flags|os.O_RDWR, 0o644)
	if errors.Is(err, fs.ErrPermission) {
		f, err = os.OpenFile(path, flags|os.O_WRONLY, 0o644)
	}
	if err != nil {
		return nil, fmt.Errorf("cannot append to %s: %w", path, err)
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() && !atomicfile.IsDevNull(fi) {
		err = fmt.Errorf("it is %s, not a regular file; a history is a regular file", atomicfile.Kind(fi))
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("cannot append to %s: %w", path, err)
	}
	return f, nil
}

// AppendHistory appends run to the history file at path as one line
// (NewHistoryEntry), creating the file (mode 0644) when it does not exist;
// the package documentation above HistoryKind says why concurrent appends
// never interleave. It refuses what CheckHistory refuses, and appends
// nothing for a run without results.
func AppendHistory(path string, run *Run, source string) error {
	if path == "" || path == "-" {
		return CheckHistory(path)
	}
	if len(run.Results) == 0 {
		return fmt.Errorf("not appending to %s: the run has %w", path, ErrNoResults)
	}
	e := NewHistoryEntry(run, source)
	if err := e.Validate(); err != nil { // a line no reader would take is not written
		return fmt.Errorf("not appending to %s: %w", path, err)
	}
	line, err := MarshalHistoryLine(e)
	if err != nil {
		return fmt.Errorf("appending to %s: %w", path, err)
	}
	historyMu.Lock() // flock on NFS is a byte-range lock, which a process's goroutines share
	defer historyMu.Unlock()
	f, err := openHistory(path, true)
	if err != nil {
		return err
	}
	unlock, err := lockHistory(f)
	if err != nil {
		f.Close()
		return fmt.Errorf("appending to %s: cannot lock it: %w", path, err)
	}
	werr := appendLine(f, line)
	unlock() // before the close: the descriptor's number may be reused once it is closed
	cerr := f.Close()
	if werr == nil {
		werr = cerr
	}
	if werr != nil {
		return fmt.Errorf("appending to %s: %w", path, werr)
	}
	return nil
}

// historyMu serializes this process's appends.
var historyMu sync.Mutex

// appendLine writes line to f, opened for appending and locked, in one
// write, then syncs. When f is readable and its last byte is not a newline
// (a line cut short by a crash or a full disk), the line starts with one,
// so that it is not swallowed by the broken one. It reads through f itself:
// opening a second descriptor and closing it would drop the lock where
// flock is emulated with byte-range locks (Linux on NFS).
func appendLine(f *os.File, line []byte) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if fi.Mode().IsRegular() && fi.Size() > 0 {
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, fi.Size()-1); err == nil && last[0] != '\n' {
			line = append([]byte{'\n'}, line...)
		}
	}
	if _, err := f.Write(line); err != nil {
		return err
	}
	if fi.Mode().IsRegular() {
		return f.Sync()
	}
	return nil
}

// HistoryLineError is a line of a history file that cannot be read.
type HistoryLineError struct {
	Path string
	Line int // from 1
	Err  error
}

func (e *HistoryLineError) Error() string {
	return fmt.Sprintf("%s:%d: %v", Printable(e.Path), e.Line, e.Err)
}

func (e *HistoryLineError) Unwrap() error { return e.Err }

// History is a history file as read: its entries in file order, and the
// lines skipped (ReadHistory with skipCorrupt).
type History struct {
	Path    string
	Entries []HistoryEntry
	Skipped []*HistoryLineError
}

// ErrEmptyHistory is wrapped by the error for a history without entries.
var ErrEmptyHistory = errors.New("no runs")

// historyMaxLine bounds one line: far above what a run of every suite with
// HistoryMaxSamples samples each makes.
const historyMaxLine = 256 << 20

// ReadHistory reads the history file at path. A line that is not a history
// entry (not JSON, JSON of another kind, another schema version, a result
// that does not validate) is an error naming the path and the line number
// (a *HistoryLineError), or with skipCorrupt is left out and listed in
// History.Skipped. Blank lines are ignored. A file without entries is an
// error wrapping ErrEmptyHistory.
func ReadHistory(path string, skipCorrupt bool) (*History, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return DecodeHistory(f, path, skipCorrupt)
}

// DecodeHistory is ReadHistory from r; name stands for the file in errors.
func DecodeHistory(r io.Reader, name string, skipCorrupt bool) (*History, error) {
	h := &History{Path: name}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), historyMaxLine)
	n := 0
	for sc.Scan() {
		n++
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		e, err := decodeHistoryLine(text)
		if err != nil {
			le := &HistoryLineError{Path: name, Line: n, Err: err}
			if !skipCorrupt {
				return nil, le
			}
			h.Skipped = append(h.Skipped, le)
			continue
		}
		e.Line = n
		h.Entries = append(h.Entries, *e)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, &HistoryLineError{Path: name, Line: n + 1, Err: fmt.Errorf("a line longer than %d MiB: not a history", historyMaxLine>>20)}
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(h.Entries) == 0 {
		why := ""
		if len(h.Skipped) > 0 {
			why = fmt.Sprintf(" (%d corrupt line(s) skipped)", len(h.Skipped))
		}
		return nil, fmt.Errorf("%s holds %w%s", Printable(name), ErrEmptyHistory, why)
	}
	return h, nil
}

func decodeHistoryLine(text []byte) (*HistoryEntry, error) {
	if text[0] != '{' {
		return nil, fmt.Errorf("not a forgebench history entry: the line is not a JSON object")
	}
	var probe struct {
		Kind   *string `json:"kind"`
		Schema *int    `json:"schema_version"`
	}
	if err := json.Unmarshal(text, &probe); err != nil {
		return nil, fmt.Errorf("not valid JSON (cut short, or two lines run together?): %s", historyJSONError(text, err))
	}
	switch {
	case probe.Kind == nil || *probe.Kind != HistoryKind:
		kind := "none"
		if probe.Kind != nil {
			kind = fmt.Sprintf("%q", *probe.Kind)
		}
		return nil, fmt.Errorf("not a forgebench history entry: its kind is %s (want %q)", kind, HistoryKind)
	case probe.Schema == nil || *probe.Schema != HistorySchema:
		v := "missing"
		if probe.Schema != nil {
			v = fmt.Sprint(*probe.Schema)
		}
		return nil, fmt.Errorf("schema_version %s is not supported (this forgebench reads version %d)", v, HistorySchema)
	}
	var e HistoryEntry
	if err := json.Unmarshal(text, &e); err != nil {
		return nil, fmt.Errorf("%s", historyJSONError(text, err))
	}
	if err := e.Validate(); err != nil {
		return nil, err
	}
	return &e, nil
}

// historyJSONError is jsonError for one line: the column is what matters.
func historyJSONError(text []byte, err error) string {
	return strings.Replace(jsonError(text, err), "line 1, column", "column", 1)
}
