// Package adapter will serve recorded runs over the Debug Adapter Protocol
// (`adi dap`): VS Code's standard requests mapped onto the engine's session,
// and the ADI commands as custom adi/* requests. It is the only package that
// imports github.com/google/go-dap. See DESIGN.md §5; not built yet.
package adapter
