package ir

import "testing"

// Each workload kind is keyed by its spec type's name, which is how gen/load
// finds it from a literal's type.
func TestWorkloadKindsKeyedByType(t *testing.T) {
	for name, k := range WorkloadKinds {
		if k.Type == nil || k.Type.Name() != name {
			t.Errorf("%s: type %v", name, k.Type)
		}
	}
}
