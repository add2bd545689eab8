// Package longtest owns the switch for the long tests: the ones that take
// minutes on a 2-core machine (host emulation of every format's kernels,
// building and testing a copy of the module). They skip by default, so that
// `go test ./...` stays quick, and run when $FORGE_LONG_TESTS is 1, as CI
// (.ci/run) sets it, so nothing they check goes unchecked there.
package longtest

import (
	"os"
	"testing"
)

// Env is the variable that turns the long tests on.
const Env = "FORGE_LONG_TESTS"

// Enabled reports whether the long tests were asked for ($FORGE_LONG_TESTS=1).
func Enabled() bool { return os.Getenv(Env) == "1" }

// Skip skips t, saying what it would have checked and how to run it, unless
// the long tests were asked for.
func Skip(t testing.TB, what string) {
	t.Helper()
	if !Enabled() {
		t.Skipf("long test (%s): runs with %s=1", what, Env)
	}
}
