// Command nilmap registers a few services in a registry and prints their
// ports in name order.
package main

import (
	"fmt"
	"sort"
)

// Registry maps service names to ports.
type Registry struct {
	ports map[string]int
	order []string
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{}
}

// Add records the port of a service.
func (r *Registry) Add(name string, port int) {
	r.order = append(r.order, name)
	r.ports[name] = port
}

// Port returns the port of a service, or 0 when it is unknown.
func (r *Registry) Port(name string) int {
	return r.ports[name]
}

func load(r *Registry, services []string, base int) {
	for i, s := range services {
		r.Add(s, base+i)
	}
}

func main() {
	fmt.Println("loading services")
	r := NewRegistry()
	load(r, []string{"api", "db", "cache"}, 8000)
	names := append([]string(nil), r.order...)
	sort.Strings(names)
	for _, n := range names {
		fmt.Printf("%s:%d\n", n, r.Port(n))
	}
}
