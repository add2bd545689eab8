// Package modroot finds the Go module a directory belongs to: the nearest
// directory at or above it that holds a go.mod. The generator, the tests'
// shared-data lookup and the kernel-library search all start from there.
package modroot

import (
	"os"
	"path/filepath"
)

// Find returns the nearest directory at or above dir that holds a go.mod,
// and false when there is none up to the file system's root.
func Find(dir string) (string, bool) {
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if fi, err := os.Stat(filepath.Join(d, "go.mod")); err == nil && !fi.IsDir() {
			return d, true
		}
		if filepath.Dir(d) == d {
			return "", false
		}
	}
}

// FromWorkingDir is Find from the working directory; "" when the working
// directory is unknown or in no module.
func FromWorkingDir() string {
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	d, _ := Find(wd)
	return d
}
