package bench

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Filter selects benchmarks by suite name, format and family. Each field
// is "" (everything) or a comma-separated list of patterns, any of which
// may match. A pattern is a glob — * any run of characters, '/' included,
// ? one character, [...] a class — matched against the whole name,
// ignoring case ("q4_*" selects Q4_0, Q4_1 and Q4_K), or, written /re/, a
// Go regular expression matched anywhere in the name, as written (no
// commas split it when it is the whole field). A plain suite name (no
// glob characters, not a regexp) also selects every suite below it, as a
// path: "memory" and "matvec_f32" select "memory/kv_cache" and
// "matvec_f32/Q4_0".
type Filter struct {
	Suite  string // "dequant_f32/*", "/^dequant_f16/"
	Format string // "Q4_*,Q8_0"
	Family string // "dequant"
}

// pattern is one compiled pattern of a Filter field.
type pattern struct {
	text    string
	re      *regexp.Regexp
	literal bool // no glob characters, not a regexp
}

// dimension is one field of a Filter: its name, its patterns and how a
// target's value is read.
type dimension struct {
	name     string // "suite", "format", "family"
	patterns []pattern
	value    func(*Target) string
	// paths: a literal pattern matching a leading path of the value ("a"
	// of "a/b/c") matches the value.
	paths bool
}

func (d *dimension) matches(p pattern, t *Target) bool {
	v := d.value(t)
	if p.match(v) {
		return true
	}
	if !d.paths || !p.literal {
		return false
	}
	for i := range len(v) {
		if v[i] == '/' && p.match(v[:i]) {
			return true
		}
	}
	return false
}

// compilePatterns parses a Filter field.
func compilePatterns(field, list string) ([]pattern, error) {
	list = strings.TrimSpace(list)
	if list == "" {
		return nil, nil
	}
	var texts []string
	if isRegexp(list) {
		texts = []string{list}
	} else {
		for _, p := range strings.Split(list, ",") {
			if p = strings.TrimSpace(p); p != "" {
				texts = append(texts, p)
			}
		}
	}
	ps := make([]pattern, 0, len(texts))
	for _, t := range texts {
		var src string
		if isRegexp(t) {
			src = t[1 : len(t)-1]
		} else {
			src = globRegexp(t)
		}
		re, err := regexp.Compile(src)
		if err != nil {
			return nil, fmt.Errorf("%s pattern %q: %w", field, t, err)
		}
		ps = append(ps, pattern{t, re, !isRegexp(t) && !strings.ContainsAny(t, "*?[")})
	}
	return ps, nil
}

func isRegexp(s string) bool { return len(s) >= 2 && s[0] == '/' && s[len(s)-1] == '/' }

// globRegexp translates a glob into an anchored, case-insensitive regexp.
func globRegexp(glob string) string {
	var b strings.Builder
	b.WriteString("(?i)^")
	rs := []rune(glob)
	for i := 0; i < len(rs); i++ {
		switch c := rs[i]; c {
		case '*':
			b.WriteString(".*")
		case '?':
			b.WriteString(".")
		case '[':
			j := i + 1
			if j < len(rs) && (rs[j] == '!' || rs[j] == '^') {
				j++
			}
			if j < len(rs) && rs[j] == ']' {
				j++
			}
			for j < len(rs) && rs[j] != ']' {
				j++
			}
			if j >= len(rs) { // no closing bracket: a literal '['
				b.WriteString(`\[`)
				continue
			}
			class := string(rs[i+1 : j])
			if class[0] == '!' {
				class = "^" + class[1:]
			}
			b.WriteString("[" + strings.ReplaceAll(class, `\`, `\\`) + "]")
			i = j
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	return b.String()
}

func (p pattern) match(s string) bool { return p.re.MatchString(s) }

// Select returns the targets the filter matches, in order. A pattern that
// matches no value of its field among targets is an error that lists the
// valid values (so a typo never silently selects nothing), as is a
// combination of fields that leaves no target.
func (f Filter) Select(targets []Target) ([]Target, error) {
	dims := []dimension{
		{name: "suite", value: func(t *Target) string { return t.Suite.Name }, paths: true},
		{name: "format", value: func(t *Target) string {
			if t.Suite.Format == nil {
				return ""
			}
			return t.Suite.Format.Name
		}},
		{name: "family", value: func(t *Target) string { return t.Suite.Family }},
	}
	var err error
	for i, list := range []string{f.Suite, f.Format, f.Family} {
		if dims[i].patterns, err = compilePatterns(dims[i].name, list); err != nil {
			return nil, err
		}
	}
	for _, d := range dims {
		var valid []string
		for i := range targets {
			// Scenario suites have no format: an empty value is no choice to list.
			if v := d.value(&targets[i]); v != "" && !slices.Contains(valid, v) {
				valid = append(valid, v)
			}
		}
		for _, p := range d.patterns {
			if !slices.ContainsFunc(targets, func(t Target) bool { return d.matches(p, &t) }) {
				return nil, fmt.Errorf("%s %q matches no %s; valid: %s", d.name, p.text, d.name, strings.Join(valid, ", "))
			}
		}
	}
	var out []Target
	for i := range targets {
		t := &targets[i]
		ok := true
		for _, d := range dims {
			if len(d.patterns) > 0 && !slices.ContainsFunc(d.patterns, func(p pattern) bool { return d.matches(p, t) }) {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, *t)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no benchmark matches %s", f)
	}
	return out, nil
}

// String spells the filter as forgebench's flags.
func (f Filter) String() string {
	var parts []string
	for _, kv := range [][2]string{{"suite", f.Suite}, {"format", f.Format}, {"family", f.Family}} {
		if kv[1] != "" {
			parts = append(parts, fmt.Sprintf("--%s %q", kv[0], kv[1]))
		}
	}
	if len(parts) == 0 {
		return "(no filter)"
	}
	return strings.Join(parts, " ")
}
