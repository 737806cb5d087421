// Package generics has a generic stack and helpers built on it.
package generics

import "cmp"

// Stack is a last-in first-out stack.
type Stack[T any] struct {
	items []T
}

// Push puts v on top of the stack.
func (s *Stack[T]) Push(v T) {
	s.items = append(s.items, v)
}

// Pop removes and returns the top of the stack; ok is false when the stack
// is empty.
func (s *Stack[T]) Pop() (v T, ok bool) {
	if len(s.items) == 0 {
		return v, false
	}
	v = s.items[0]
	s.items = s.items[:len(s.items)-1]
	return v, true
}

// Reverse returns the elements of xs in reverse order.
func Reverse[T any](xs []T) []T {
	s := &Stack[T]{}
	for _, x := range xs {
		s.Push(x)
	}
	out := make([]T, 0, len(xs))
	for {
		v, ok := s.Pop()
		if !ok {
			return out
		}
		out = append(out, v)
	}
}

// Max returns the largest element of a non-empty slice.
func Max[T cmp.Ordered](xs []T) T {
	m := xs[0]
	for _, x := range xs[1:] {
		m = max(m, x)
	}
	return m
}
