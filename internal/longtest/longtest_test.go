package longtest_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/rocmforge/forge/internal/longtest"
)

func TestEnabled(t *testing.T) {
	for _, tc := range []struct {
		val  string
		want bool
	}{{"1", true}, {"", false}, {"0", false}, {"yes", false}} {
		t.Setenv(longtest.Env, tc.val)
		if got := longtest.Enabled(); got != tc.want {
			t.Errorf("%s=%q: Enabled() = %v, want %v", longtest.Env, tc.val, got, tc.want)
		}
	}
}

func TestSkip(t *testing.T) {
	t.Setenv(longtest.Env, "")
	ran := false
	t.Run("off", func(t *testing.T) {
		longtest.Skip(t, "nothing")
		ran = true
	})
	if ran {
		t.Errorf("Skip did not skip with %s unset", longtest.Env)
	}
	t.Setenv(longtest.Env, "1")
	t.Run("on", func(t *testing.T) {
		longtest.Skip(t, "nothing")
		ran = true
	})
	if !ran {
		t.Errorf("Skip skipped with %s=1", longtest.Env)
	}
}

func TestEnviron(t *testing.T) {
	t.Setenv(longtest.Env, "1")
	t.Setenv("FORGE_LONGTEST_PROBE", "kept")
	env := longtest.Environ()
	if i := slices.IndexFunc(env, func(kv string) bool { return strings.HasPrefix(kv, longtest.Env+"=") }); i >= 0 {
		t.Errorf("Environ() keeps %s", env[i])
	}
	if !slices.Contains(env, "FORGE_LONGTEST_PROBE=kept") {
		t.Error("Environ() dropped another variable")
	}
}
