// Package reject is the translator's error-test input. Every line that must
// get an error carries a comment // ERROR "regexp" (the convention of Go's
// own test/ directory); the test translates every block type and checks
// that exactly those lines get errors, each matching its regexp.
package reject
