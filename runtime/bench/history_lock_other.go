//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package bench

import "os"

// historyNonblock: no such open flag here.
const historyNonblock = 0

// lockHistory: no flock here; each append is one write to a file opened
// for appending (on Windows, FILE_APPEND_DATA, which appends each write
// whole).
func lockHistory(*os.File) (unlock func(), err error) { return func() {}, nil }
