// Package agent will diagnose failing runs (`adi diagnose`): an offline
// diagnoser (panic origin tracing, spectrum-based fault localisation, fix
// templates) and an LLM loop over any OpenAI-compatible endpoint, both
// driving the engine through its commands. See DESIGN.md §6; not built yet.
package agent
