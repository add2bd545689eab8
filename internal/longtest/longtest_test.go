package longtest_test

import (
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
