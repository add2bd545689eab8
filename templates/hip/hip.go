// Package hip owns forge's HIP sources that are not generated from a spec:
// the portability header (forge_portability.h), which every generated .hip
// file includes and which holds the scalar intrinsics translated specs call,
// and the text/template kernel templates: one per kernel family
// (<family>.hip.tmpl), plus runtime.hip.tmpl, each library's runtime ABI and
// copy kernel. gen/hipgen renders them; they are embedded so that forgegen
// needs no source tree at run time.
//
// The tests here check the header itself: the scalar intrinsics against the
// Go specs bit for bit (compiled for the host with hipcc), the integer-form
// intrinsics' device branches against the Go specs with each vendor's
// instructions emulated on the host, and that every facility compiles for
// each AMD target.
package hip

import "embed"

// FS holds the templates and the header, at the top level: "dequant.hip.tmpl",
// "runtime.hip.tmpl", "forge_portability.h".
//
//go:embed *.tmpl *.h
var FS embed.FS
