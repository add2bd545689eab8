package bench

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/rocmforge/forge/internal/atomicfile"
)

// DefaultBaselineDir is where forgebench keeps baselines unless told
// otherwise, relative to the working directory.
const DefaultBaselineDir = ".forgebench/baselines"

// maxBaselineNameLen keeps baseline file names well inside every file system's limit.
const maxBaselineNameLen = 100

// BaselineStore is a directory of baselines, one JSON file per name: DIR/NAME.json,
// each a Run with Name set.
type BaselineStore struct {
	Dir string
}

// ErrNoBaseline is wrapped by BaselineStore.Load and BaselineStore.Delete for a name that
// has no file.
var ErrNoBaseline = errors.New("no such baseline")

// ValidName checks a baseline name: letters, digits, '-', '_' and '.', not
// starting with '.' (hidden and temporary files start with one, and "." and
// ".." are no names), at most 100 characters. Names are file names, so
// nothing else is accepted.
func ValidName(name string) error {
	if name == "" {
		return errors.New("baseline name is empty")
	}
	if len(name) > maxBaselineNameLen {
		return fmt.Errorf("baseline name %.20q... is longer than %d characters", name, maxBaselineNameLen)
	}
	if name[0] == '.' {
		return fmt.Errorf("baseline name %q starts with '.'", name)
	}
	for _, c := range name {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.') {
			return fmt.Errorf("baseline name %q: %q is not allowed (use letters, digits, '-', '_' and '.')", name, c)
		}
	}
	return nil
}

func (s BaselineStore) dir() string {
	if s.Dir == "" {
		return DefaultBaselineDir
	}
	return s.Dir
}

// Path is the file of baseline name.
func (s BaselineStore) Path(name string) string { return filepath.Join(s.dir(), name+".json") }

// Save writes run as baseline name, atomically, creating the directory if
// needed. Without force it creates the file exclusively: of concurrent
// saves of one name exactly one succeeds and the others are told it already
// exists. With force it replaces an existing baseline, but never a file it
// cannot read as a run or baseline (a corrupt or foreign file is reported
// and left as it is), nor anything atomicfile refuses to replace. run is
// not modified; the saved copy has Name set.
func (s BaselineStore) Save(name string, run *Run, force bool) (path string, err error) {
	if err := ValidName(name); err != nil {
		return "", err
	}
	if len(run.Results) == 0 {
		return "", fmt.Errorf("baseline %q: the run has no results to save", name)
	}
	if err := os.MkdirAll(s.dir(), 0o755); err != nil {
		return "", fmt.Errorf("cannot create the baseline directory %s: %w", s.dir(), err)
	}
	path = s.Path(name)
	exists := fmt.Errorf("baseline %q already exists (%s); use --force to replace it", name, path)
	if _, err := os.Lstat(path); err == nil {
		// Checked before reading it: opening a FIFO would block.
		if err := atomicfile.Check(path); err != nil {
			return "", err
		}
		if _, rerr := ReadRun(path); rerr != nil {
			return "", fmt.Errorf("existing baseline %q cannot be read, so it is not replaced (inspect it, move it away or `forgebench baseline delete %s`): %w", name, name, rerr)
		}
		if !force {
			return "", exists
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	b := *run
	b.Name = name
	if force {
		err = WriteRun(path, &b)
	} else {
		// The check above is only a courtesy: another save may create
		// the name after it, which atomicfile.Create refuses to replace.
		err = createRun(path, &b)
		if errors.Is(err, fs.ErrExist) {
			err = exists
		}
	}
	if err != nil {
		return "", err
	}
	return path, nil
}

// createRun is WriteRun for a file that must not exist yet.
func createRun(path string, run *Run) error {
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
	return atomicfile.Create(path, 0o644, func(w io.Writer) error { return EncodeRun(w, &r) })
}

// Load reads baseline name. A missing baseline wraps ErrNoBaseline; a
// corrupt one is an error naming its file.
func (s BaselineStore) Load(name string) (*Run, error) {
	if err := ValidName(name); err != nil {
		return nil, err
	}
	path := s.Path(name)
	run, err := ReadRun(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w %q in %s (`forgebench baseline list` shows the saved ones)", ErrNoBaseline, name, s.dir())
	}
	return run, err
}

// Delete removes baseline name, readable or not.
func (s BaselineStore) Delete(name string) error {
	if err := ValidName(name); err != nil {
		return err
	}
	err := os.Remove(s.Path(name))
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w %q in %s", ErrNoBaseline, name, s.dir())
	}
	return err
}

// BaselineEntry is one baseline in a listing: its run, or the error reading it.
type BaselineEntry struct {
	Name string
	Path string
	Run  *Run
	Err  error
}

// List reads every baseline in the store, sorted by name. A missing
// directory is an empty store; files that do not read as runs are listed
// with their error. Hidden files (atomic writes' temporaries) and files
// other than *.json are not baselines.
func (s BaselineStore) List() ([]BaselineEntry, error) {
	ents, err := os.ReadDir(s.dir())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []BaselineEntry
	for _, e := range ents {
		n := e.Name()
		name, ok := strings.CutSuffix(n, ".json")
		if !ok || e.IsDir() || ValidName(name) != nil {
			continue
		}
		p := filepath.Join(s.dir(), n)
		run, err := ReadRun(p)
		out = append(out, BaselineEntry{Name: name, Path: p, Run: run, Err: err})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}
