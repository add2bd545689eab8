// Package check is the vocabulary the spec packages' validation shares: a
// Problem names the field of a spec value at fault and says why, so that
// gen/load can report it at that field's line in the spec's source, and a
// program holding the value itself (forgebench, its tuner) can report it
// against the value. It imports nothing of forge.
package check

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Problem is one thing wrong with a spec value.
type Problem struct {
	// Field is the path of the field at fault, from the spec value: "WaveSize",
	// "MatMul.TileRows", "Kernels[1].Output"; "" for the value as a whole.
	Field string
	// Msg says what is wrong, naming the value: "MatMul.TileK 300 must be
	// in [1, 256]".
	Msg string
}

func (p Problem) String() string { return p.Msg }

// List collects a value's problems.
type List []Problem

// Add records a problem with field.
func (l *List) Add(field, format string, args ...any) {
	*l = append(*l, Problem{Field: field, Msg: fmt.Sprintf(format, args...)})
}

// In records the problems of a part of the value, the part at field: a
// problem with its TileRows becomes one with MatMul.TileRows.
func (l *List) In(field string, ps []Problem) {
	for _, p := range ps {
		*l = append(*l, Problem{Field: Join(field, p.Field), Msg: p.Msg})
	}
}

// Join is the path of field inside the part at parent.
func Join(parent, field string) string {
	switch {
	case parent == "":
		return field
	case field == "":
		return parent
	case field[0] == '[':
		return parent + field
	}
	return parent + "." + field
}

// Index is the path of element i of the list at field: "Kernels[1]".
func Index(field string, i int) string { return field + "[" + strconv.Itoa(i) + "]" }

// Err is ps as one error, a line per problem, each prefixed by what the
// value is ("target sm_90"); nil when there are none.
func Err(what string, ps []Problem) error {
	if len(ps) == 0 {
		return nil
	}
	lines := make([]string, len(ps))
	for i, p := range ps {
		lines[i] = what + ": " + p.Msg
	}
	return errors.New(strings.Join(lines, "\n"))
}

// LowerName reports whether s is lower-case letters, digits and
// underscores, starting with a letter: a name usable in file
// and symbol names.
func LowerName(s string) bool {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}
