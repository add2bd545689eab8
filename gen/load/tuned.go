package load

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/rocmforge/forge/gen/ir"
	"github.com/rocmforge/forge/gen/translate"
	"github.com/rocmforge/forge/specs/tuned"
)

// tunedFiles reads each target's winners file, specs/tuned/<target>.json
// (forgebench tune's output), when there is one, into Target.Tuned. A file
// that names no target, a key that is not a known family, format, class or
// knob, a format without an integer form under a family that runs on it
// (matvec_x8), a matmul_int class whose MaxBatch no MatMulInt class of the
// target has, and a knob value the target could not compile for the
// format (targets.Target.FormatKnobProblems) are errors naming the file
// and the key.
func (l *loader) tunedFiles(s *ir.Spec) {
	fail := func(file, msg string) {
		for _, line := range strings.Split(msg, "\n") {
			l.errs = append(l.errs, &translate.Error{Msg: file + ": " + line})
		}
	}
	var formats []string
	byName := map[string]*ir.Format{}
	for _, f := range s.Formats {
		formats = append(formats, f.Name)
		byName[f.Name] = f
	}
	families := map[string]bool{}
	for _, f := range s.Families {
		families[f.Name] = true
	}
	targets := map[string]bool{}
	for _, t := range s.Targets {
		targets[t.Name] = true
		file := tuned.Path(t.Name)
		data, err := os.ReadFile(filepath.Join(l.root, filepath.FromSlash(file)))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			fail(file, err.Error())
			continue
		}
		f, err := tuned.Parse(data, t.Name, formats)
		if err != nil {
			fail(file, err.Error())
			continue
		}
		ok := true
		for _, fam := range slices.Sorted(maps.Keys(f.Families)) {
			byFormat := f.Families[fam]
			spec, _ := tuned.FamilyByName(fam) // tuned.Parse checked it is one
			if !families[spec.Spec] {
				fail(file, fmt.Sprintf("families.%s: no family %s in specs/families", fam, spec.Spec))
				ok = false
				continue
			}
			for _, format := range slices.Sorted(maps.Keys(byFormat)) {
				byClass := byFormat[format]
				if spec.IntForm && byName[format].SubBlock == 0 {
					fail(file, fmt.Sprintf("families.%s.%s: %s has no integer form (its spec's SubBlock is 0), so no %s kernel", fam, format, format, spec.Kernel))
					ok = false
					continue
				}
				if spec.Half && byName[format].IEEE != "binary16" {
					fail(file, fmt.Sprintf("families.%s.%s: %s is not stored as plain binary16, so it has no mma.sync f16 path of its own", fam, format, format))
					ok = false
					continue
				}
				for _, class := range slices.Sorted(maps.Keys(byClass)) {
					e := byClass[class]
					if c, _ := spec.Class(class); spec == tuned.MatMulInt && !t.HasMatMulIntClass(c.MaxBatch) {
						fail(file, fmt.Sprintf("families.%s.%s.%s: %s has no MatMulInt class of MaxBatch %d for the winner to replace", fam, format, class, t.Name, c.MaxBatch))
						ok = false
						continue
					} else if spec == tuned.MatMulHalf && !t.HasMatMulHalfClass(c.MaxBatch) {
						fail(file, fmt.Sprintf("families.%s.%s.%s: %s has no MatMulHalf class of MaxBatch %d for the winner to replace", fam, format, class, t.Name, c.MaxBatch))
						ok = false
						continue
					}
					if ps := t.FormatKnobProblems(fam, byName[format].BlockElems, e.Knobs); len(ps) > 0 {
						var why []string
						for _, p := range ps {
							why = append(why, p.Msg)
						}
						fail(file, fmt.Sprintf("families.%s.%s.%s.knobs: %s", fam, format, class, strings.Join(why, "; ")))
						ok = false
					}
				}
			}
		}
		if ok {
			t.Tuned = f
		}
	}
	matches, _ := filepath.Glob(filepath.Join(l.root, filepath.FromSlash(tuned.Dir), "*.json"))
	sort.Strings(matches)
	for _, m := range matches {
		name := strings.TrimSuffix(filepath.Base(m), ".json")
		if !targets[name] {
			fail(tuned.Path(name), "no target is named "+name)
		}
	}
}
