// Package tuned is the data forgebench tune writes and go generate reads:
// specs/tuned/<target>.json holds, per kernel family, format and shape
// class, the winning values of the family's tuning knobs and where they
// came from. It also names each tunable family's knobs (with the -D macros
// that force them at compile time) and shape classes, so that the tuner,
// gen/load and gen/hipgen agree on them. It is plain Go over encoding/json:
// forgebench, which runs where there is no Go toolchain, imports it.
package tuned

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"
)

// Dir is where the winners files live, relative to the module root.
const Dir = "specs/tuned"

// Path is target's winners file, relative to the module root.
func Path(target string) string { return path.Join(Dir, target+".json") }

// Knob is one tuning parameter of a family.
type Knob struct {
	Name  string // the key in the winners file: "threads"
	Macro string // the -D macro that forces it: "FORGE_TUNE_MATVEC_THREADS"
	// Optional: a winner may leave it out, meaning 0 (a knob added after
	// winners were written without it).
	Optional bool
}

// Class is a shape class: the launcher dispatches on it, and each class has
// its own winners, tuned at its representative shape.
type Class struct {
	Name    string // "narrow"
	MaxCols int    // matvec: the class holds cols ≤ MaxCols (and above the previous class's); 0: no bound (the last class)
	// MaxBatch (matmul): the class holds batches ≤ MaxBatch (and above the
	// previous class's); 0: no bound (the last class). Its winner replaces
	// the target's class (MatMulInt, MatMulHalf) of the same MaxBatch.
	MaxBatch int
	Rows     int // the shape it is tuned at
	Cols     int
	Batch    int // matmul: the batch it is tuned at; 0 for matvec
	Doc      string
}

// Dims is the shape the class is tuned at: [rows, cols], or [rows, cols,
// batch] for a matmul class.
func (c *Class) Dims() []int {
	if c.Batch > 0 {
		return []int{c.Rows, c.Cols, c.Batch}
	}
	return []int{c.Rows, c.Cols}
}

// Family is a tunable kernel: the key of its winners in the files and the
// name forgebench tune --family takes.
type Family struct {
	Name string // "matvec", "matvec_x8"
	// Spec is the family in specs/families whose generated file (one per
	// format and target) holds the kernel: "matvec".
	Spec string
	// Kernel is the kernel of Spec that is timed: "matvec_f32".
	Kernel string
	// IntForm: the kernel runs on a format's integer form, so only the
	// formats that have one (formats.Meta.SubBlock > 0) have winners.
	IntForm bool
	// Half: the kernel is matmul's mma.sync f16 path for the formats
	// stored as plain binary16 (formats.Meta.IEEE "binary16": F16), so only
	// those have winners.
	Half    bool
	Knobs   []Knob  // in the order of the template's parameters
	Classes []Class // ordered by MaxCols; the last is unbounded
}

// MatVec is the matvec family: its knobs are MatVecTuning's fields
// (template parameters Threads, Rows, Chunk).
var MatVec = &Family{
	Name:   "matvec",
	Spec:   "matvec",
	Kernel: "matvec_f32",
	Knobs: []Knob{
		{Name: "threads", Macro: "FORGE_TUNE_MATVEC_THREADS"},
		{Name: "rows", Macro: "FORGE_TUNE_MATVEC_ROWS"},
		{Name: "chunk", Macro: "FORGE_TUNE_MATVEC_CHUNK"},
	},
	Classes: []Class{
		{Name: "narrow", MaxCols: 8192, Rows: 14336, Cols: 4096, Doc: "cols ≤ 8192 (tuned at 14336×4096: FFN up/gate)"},
		{Name: "wide", Rows: 4096, Cols: 14336, Doc: "cols > 8192 (tuned at 4096×14336: FFN down)"},
	},
}

// MatVecX8 is the matvec family's kernel on a format's integer form,
// matvec_x8 (the template's FORGE_TUNE_MATVEC_X8_* macros), with matvec's
// two shape classes. cols sets a thread's trip count over a row's blocks,
// and with it how many threads a row keeps busy: on the H100 Q4_K's best
// at 4096×14336 (128 threads, 18.1 µs against 19.6 with 64, W rotated)
// lost at 14336×4096 (19.4 against 17.7) and at the decode step's other
// projections, whose 4096 columns give a 128-thread workgroup one block
// per thread (28672×4096: 35.1 against 30.7; docs/PERFORMANCE.md).
var MatVecX8 = &Family{
	Name:    "matvec_x8",
	Spec:    "matvec",
	Kernel:  "matvec_x8",
	IntForm: true,
	Knobs: []Knob{
		{Name: "threads", Macro: "FORGE_TUNE_MATVEC_X8_THREADS"},
		{Name: "rows", Macro: "FORGE_TUNE_MATVEC_X8_ROWS"},
		{Name: "lanes", Macro: "FORGE_TUNE_MATVEC_X8_LANES"},
		{Name: "groups", Macro: "FORGE_TUNE_MATVEC_X8_GROUPS"},
	},
	Classes: MatVec.Classes,
}

// MatMulInt is matmul's integer path (the kernels on a format's integer
// form: mma.sync on NVIDIA; WMMA, MFMA or dot4 on AMD), whose
// configurations are the target spec's MatMulInt classes, by batch. Its
// knobs force one configuration on every batch
// (FORGE_TUNE_MATMUL_INT_FORCE_*), and a class's winner replaces the
// target's class of the same MaxBatch for that format. The classes are
// the batches whose best tiles differ most on the H100 (a 4096-row matrix
// at batch 16 fills 32 workgroups of 128-row tiles unless K is split; at
// 512, 128 × 128 tiles fill the machine): prefill of 16, 64 and 512
// tokens, at the FFN's 4096×14336. Its knobs are the tiles' and int8
// (NVIDIA: 1 keeps the int8 products where the target would decode W's
// codes to f16 in the fragments; a winner without it has 0).
var MatMulInt = &Family{
	Name:    "matmul_int",
	Spec:    "matmul",
	Kernel:  "matmul_f32",
	IntForm: true,
	Knobs:   append(matmulForceKnobs("FORGE_TUNE_MATMUL_INT_FORCE_"), Knob{Name: "int8", Macro: "FORGE_TUNE_MATMUL_INT_FORCE_INT8", Optional: true}),
	Classes: []Class{
		{Name: "b16", MaxBatch: 16, Rows: 4096, Cols: 14336, Batch: 16, Doc: "batch ≤ 16 (tuned at 4096×14336×16)"},
		{Name: "b64", MaxBatch: 64, Rows: 4096, Cols: 14336, Batch: 64, Doc: "batch ≤ 64 (tuned at 4096×14336×64)"},
		{Name: "large", Rows: 4096, Cols: 14336, Batch: 512, Doc: "batch > 64 (tuned at 4096×14336×512)"},
	},
}

// MatMulHalf is matmul's mma.sync f16 path (NVIDIA: F16, and through it
// the quantized formats' route through f16), whose configurations are the
// target spec's MatMulHalf classes, by batch: forced on every batch by
// FORGE_TUNE_MATMUL_HALF_FORCE_*, a class's winner replacing the target's
// class of the same MaxBatch. Its classes are MatMulInt's and one more, up
// to 256, where one column of 128-wide tiles leaves most of the H100 idle
// unless K is split.
var MatMulHalf = &Family{
	Name:   "matmul_half",
	Spec:   "matmul",
	Kernel: "matmul_f32",
	Half:   true,
	Knobs:  matmulForceKnobs("FORGE_TUNE_MATMUL_HALF_FORCE_"),
	Classes: []Class{
		{Name: "b16", MaxBatch: 16, Rows: 4096, Cols: 14336, Batch: 16, Doc: "batch ≤ 16 (tuned at 4096×14336×16)"},
		{Name: "b64", MaxBatch: 64, Rows: 4096, Cols: 14336, Batch: 64, Doc: "batch ≤ 64 (tuned at 4096×14336×64)"},
		{Name: "b256", MaxBatch: 256, Rows: 4096, Cols: 14336, Batch: 256, Doc: "batch ≤ 256 (tuned at 4096×14336×256)"},
		{Name: "large", Rows: 4096, Cols: 14336, Batch: 512, Doc: "batch > 256 (tuned at 4096×14336×512)"},
	},
}

// matmulForceKnobs are matmul's tile knobs, each forced on every batch by
// the macro prefix+KNOB (THREADS, TM, TN, TK, WARP_ROWS, SPLIT_K).
func matmulForceKnobs(prefix string) []Knob {
	var ks []Knob
	for _, k := range []string{"threads", "tm", "tn", "tk", "warp_rows", "split_k"} {
		ks = append(ks, Knob{Name: k, Macro: prefix + strings.ToUpper(k)})
	}
	return ks
}

// Families are the tunable families.
var Families = []*Family{MatVec, MatVecX8, MatMulInt, MatMulHalf}

// MatMul reports whether f is one of matmul's class families (MatMulInt,
// MatMulHalf): classes by batch, each winner replacing the target's class
// of its MaxBatch.
func (f *Family) MatMul() bool { return f == MatMulInt || f == MatMulHalf }

// FamilyByName finds a tunable family.
func FamilyByName(name string) (*Family, bool) {
	for _, f := range Families {
		if f.Name == name {
			return f, true
		}
	}
	return nil, false
}

// FamilyNames lists the tunable families' names.
func FamilyNames() []string {
	var out []string
	for _, f := range Families {
		out = append(out, f.Name)
	}
	return out
}

// ClassOf is the class a matrix of cols columns falls in.
func (f *Family) ClassOf(cols int) *Class {
	for i := range f.Classes {
		if c := &f.Classes[i]; c.MaxCols == 0 || cols <= c.MaxCols {
			return c
		}
	}
	return &f.Classes[len(f.Classes)-1]
}

// Class finds a class by name.
func (f *Family) Class(name string) (*Class, bool) {
	for i := range f.Classes {
		if f.Classes[i].Name == name {
			return &f.Classes[i], true
		}
	}
	return nil, false
}

// KnobNames lists the family's knob names in order.
func (f *Family) KnobNames() []string {
	var out []string
	for _, k := range f.Knobs {
		out = append(out, k.Name)
	}
	return out
}

// ClassNames lists the family's class names in order.
func (f *Family) ClassNames() []string {
	var out []string
	for _, c := range f.Classes {
		out = append(out, c.Name)
	}
	return out
}

// File is one target's winners file.
type File struct {
	Target string `json:"target"`
	// Families maps family → format name ("Q4_0") → class → winner.
	Families map[string]map[string]map[string]*Entry `json:"families"`
}

// Entry is one winner and its provenance.
type Entry struct {
	Knobs      map[string]int `json:"knobs"`          // every knob of the family
	Device     string         `json:"device"`         // the GPU it was measured on
	Date       string         `json:"date"`           // when (RFC 3339, UTC)
	Rev        string         `json:"rev,omitempty"`  // forge's git revision, if known
	Shape      string         `json:"shape"`          // the shape timed: "14336x4096"
	Weights    string         `json:"weights"`        // the weight mode: "rotate"
	WinnerUS   float64        `json:"winner_us"`      // the winner's median µs per launch
	DefaultUS  float64        `json:"default_us"`     // the spec default's (0: not measured)
	Candidates int            `json:"candidates"`     // candidates timed (that compiled and passed)
	Note       string         `json:"note,omitempty"` // anything else worth keeping
}

// Entry returns the winner for family, format and class, or nil.
func (f *File) Entry(family, format, class string) *Entry {
	if f == nil {
		return nil
	}
	return f.Families[family][format][class]
}

// Set records a winner.
func (f *File) Set(family, format, class string, e *Entry) {
	if f.Families == nil {
		f.Families = map[string]map[string]map[string]*Entry{}
	}
	if f.Families[family] == nil {
		f.Families[family] = map[string]map[string]*Entry{}
	}
	if f.Families[family][format] == nil {
		f.Families[family][format] = map[string]*Entry{}
	}
	f.Families[family][format][class] = e
}

// Marshal is the file as indented JSON (map keys sorted), newline-terminated.
func (f *File) Marshal() ([]byte, error) {
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// Parse decodes and checks a winners file: unknown fields, families,
// classes and knobs are errors, as is a format not in formats (when
// formats is non-nil), a target other than target (when target is
// non-empty) and an entry lacking a knob. Knob values are checked by the
// caller, which knows the target (see gen/load). Each problem is one line
// of the error, naming the key: "families.matvec.Q4_0.huge: unknown class".
func Parse(data []byte, target string, formats []string) (*File, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var f File
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("not a winners file: %w", err)
	}
	if dec.More() {
		return nil, errors.New("not a winners file: data after the JSON object")
	}
	var errs []string
	bad := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }
	if target != "" && f.Target != target {
		bad("target: %q, want %q (the file's name)", f.Target, target)
	}
	for _, fam := range slices.Sorted(maps.Keys(f.Families)) {
		spec, ok := FamilyByName(fam)
		if !ok {
			bad("families.%s: unknown tunable family (want one of %s)", fam, strings.Join(FamilyNames(), ", "))
			continue
		}
		for _, format := range slices.Sorted(maps.Keys(f.Families[fam])) {
			if formats != nil && !slices.Contains(formats, format) {
				bad("families.%s.%s: unknown format", fam, format)
				continue
			}
			for _, class := range slices.Sorted(maps.Keys(f.Families[fam][format])) {
				key := "families." + fam + "." + format + "." + class
				if _, ok := spec.Class(class); !ok {
					bad("%s: unknown class (want one of %s)", key, strings.Join(spec.ClassNames(), ", "))
					continue
				}
				e := f.Families[fam][format][class]
				if e == nil {
					bad("%s: null entry", key)
					continue
				}
				for _, k := range slices.Sorted(maps.Keys(e.Knobs)) {
					if !slices.Contains(spec.KnobNames(), k) {
						bad("%s.knobs.%s: unknown knob (want %s)", key, k, strings.Join(spec.KnobNames(), ", "))
					}
				}
				for _, k := range spec.Knobs {
					if _, ok := e.Knobs[k.Name]; !ok && !k.Optional {
						bad("%s.knobs: lacks %s", key, k.Name)
					}
				}
			}
		}
	}
	if len(errs) > 0 {
		return nil, errors.New(strings.Join(errs, "\n"))
	}
	return &f, nil
}
