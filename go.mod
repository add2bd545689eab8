module github.com/rocmforge/forge

go 1.26
