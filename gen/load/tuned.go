package load

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/rocmforge/forge/gen/ir"
	"github.com/rocmforge/forge/gen/translate"
	"github.com/rocmforge/forge/specs/tuned"
)

// tunedFiles reads each target's winners file, specs/tuned/<target>.json
// (forgebench tune's output), when there is one, into Target.Tuned. A file
// that names no target, a key that is not a known family, format, class or
// knob, and a knob value the target could not compile
// (targets.Target.KnobProblems) are errors naming the file.
func (l *loader) tunedFiles(s *ir.Spec) {
	fail := func(file, msg string) {
		for _, line := range strings.Split(msg, "\n") {
			l.errs = append(l.errs, &translate.Error{Msg: file + ": " + line})
		}
	}
	var formats []string
	for _, f := range s.Formats {
		formats = append(formats, f.Name)
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
		for fam, byFormat := range f.Families {
			if !families[fam] {
				fail(file, fmt.Sprintf("families.%s: no such family in specs/families", fam))
				ok = false
				continue
			}
			for format, byClass := range byFormat {
				for class, e := range byClass {
					if ps := t.KnobProblems(fam, e.Knobs); len(ps) > 0 {
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
