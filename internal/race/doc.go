// Package race says whether the race detector is on, for the few tests
// whose bounds it changes: it keeps shadow memory for the memory a program
// touches (raising resident memory about threefold) and slows the program
// 2–20×. A test loosens only the bound that the detector itself inflates,
// saying why, or scales its heaviest case down while keeping its
// concurrent paths.
package race
